import { FAVICON_URL } from './favicon.js';

/** The `<head>` of every HTML page of the service: Portuguese pages, never indexed, assets from this origin. */
export function PageHead(props: {
  title: string;
  nonce: string;
  css: string;
  /** A module script served from this origin, run under the page's nonce. */
  script?: string | undefined;
  /** Page-specific CSS built only from validated values; goes in the nonce'd style. */
  style?: string | undefined;
}) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{props.title}</title>
      <link rel="icon" href={FAVICON_URL} type="image/svg+xml" />
      <link rel="stylesheet" href={props.css} />
      {props.style ? <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.style }} /> : null}
      {props.script ? <script type="module" src={props.script} nonce={props.nonce} /> : null}
    </head>
  );
}
