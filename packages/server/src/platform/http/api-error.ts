/** An error that leaves the service as the documented envelope. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (message: string, param: string | null = null): ApiError =>
  new ApiError(400, 'invalid_request', message, param);

export const notFound = (resource: string, id?: string): ApiError =>
  new ApiError(404, 'not_found', id === undefined ? `No such ${resource}.` : `No such ${resource}: '${id}'.`);
