import { Busboy } from '@fastify/busboy';
import type { BusboyHeaders, BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DashboardError } from './dashboard-plugin.js';

/** Limits of an upload form: a certificate, a key or a PKCS#12 file is a few KB. */
export const UPLOAD_LIMIT_BYTES = 64 * 1024;
const MAX_FILES = 4;
const MAX_FIELDS = 10;
const FIELD_LIMIT_BYTES = 8 * 1024;
const BODY_LIMIT_BYTES = MAX_FILES * UPLOAD_LIMIT_BYTES + 64 * 1024;

const FILES = Symbol('uploaded files');

/** A parsed multipart form: its text fields, and its files by field name (empty ones left out). */
export interface UploadedForm {
  fields: Record<string, string>;
  files: Record<string, Buffer>;
}

type ParsedBody = Record<string, string> & { [FILES]: Record<string, Buffer> };

const tooLarge = () =>
  new DashboardError(
    413,
    `Arquivo ou formulário grande demais (cada arquivo até ${UPLOAD_LIMIT_BYTES / 1024} KB).`,
  );

function parse(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: Record<string, Buffer> = {};
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: request.headers as BusboyHeaders,
        limits: {
          files: MAX_FILES,
          fields: MAX_FIELDS,
          fileSize: UPLOAD_LIMIT_BYTES,
          fieldSize: FIELD_LIMIT_BYTES,
          parts: MAX_FILES + MAX_FIELDS,
        },
      });
    } catch {
      return reject(new DashboardError(400, 'Formulário inválido.'));
    }
    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) return fail(tooLarge());
      fields[name] = value;
    });
    parser.on('file', (name: string, stream: NodeJS.ReadableStream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        const content = Buffer.concat(chunks);
        // A file input left empty still sends a part with no bytes.
        if (content.length > 0) files[name] = content;
      });
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const)
      parser.on(limit, () => fail(tooLarge()));
    parser.on('error', () => fail(new DashboardError(400, 'Formulário inválido.')));
    parser.on('finish', () => {
      if (!failed) resolve(Object.assign(Object.create(null) as ParsedBody, fields, { [FILES]: files }));
    });
    payload.pipe(parser);
  });
}

/**
 * Lets the routes of one screen take `multipart/form-data` (file uploads), parsed before the
 * guard runs so the form's CSRF field is checked like any other form's. Files are held in memory
 * within the limits above; anything larger answers 413 before a handler runs.
 */
export function acceptMultipartForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'multipart/form-data',
    { bodyLimit: BODY_LIMIT_BYTES },
    (request: FastifyRequest, payload: NodeJS.ReadableStream) => parse(request, payload),
  );
}

/** The form a route of such a page received. */
export function uploadedForm(request: FastifyRequest): UploadedForm {
  const body = request.body as ParsedBody | undefined;
  if (!body || !body[FILES]) throw new DashboardError(400, 'Envie o formulário da página.');
  const { [FILES]: files, ...fields } = body;
  return { fields, files };
}
