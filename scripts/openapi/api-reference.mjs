// Renders docs/api.md, the API reference a reader of the repository needs, from the OpenAPI document
// (scripts/write-openapi.mjs writes it next to docs/openapi.json and checks it the same way).

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const COMPONENTS = '#/components/schemas/';
const STORABLE = '^[^\\u0000\\ud800-\\udfff]*$';
const VISIBLE = '^[^\\u0000\\ud800-\\udfff]*[^\\s\\u0000\\ud800-\\udfff][^\\u0000\\ud800-\\udfff]*$';

const anchor = (text) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ +/g, '-');
const cell = (text) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n+/g, ' ');
const refName = (schema) => (typeof schema?.$ref === 'string' ? schema.$ref.slice(COMPONENTS.length) : null);

function typeOf(schema, document) {
  const ref = refName(schema);
  if (ref) return `[${ref}](#${anchor(`${ref} object`)})`;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  const types = Array.isArray(schema.type)
    ? schema.type
    : [schema.type ?? (schema.properties ? 'object' : 'any')];
  return types
    .map((type) => (type === 'array' ? `array of ${typeOf(schema.items ?? {}, document)}` : type))
    .join(' or ');
}

function rulesOf(schema) {
  const rules = [];
  if (schema.format) rules.push(`format ${schema.format}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    rules.push(`${schema.minLength}-${schema.maxLength} characters`);
  else if (schema.maxLength !== undefined) rules.push(`at most ${schema.maxLength} characters`);
  else if (schema.minLength !== undefined) rules.push(`at least ${schema.minLength} characters`);
  if (schema.minimum !== undefined) rules.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) rules.push(`≤ ${schema.maximum}`);
  if (schema.multipleOf !== undefined) rules.push(`multiple of ${schema.multipleOf}`);
  if (schema.minItems !== undefined) rules.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) rules.push(`at most ${schema.maxItems} items`);
  if (schema.maxProperties !== undefined) rules.push(`at most ${schema.maxProperties} keys`);
  if (schema.pattern === VISIBLE) rules.push('not blank');
  else if (schema.pattern !== undefined && schema.pattern !== STORABLE)
    rules.push(schema['x-pattern-message'] ?? `pattern \`${schema.pattern}\``);
  if (schema.default !== undefined) rules.push(`default \`${JSON.stringify(schema.default)}\``);
  return rules.join('; ');
}

/** A field's description, then its rules in brackets. */
function describe(schema, description = schema.description) {
  const rules = rulesOf(schema);
  return [description, rules && `(${rules})`].filter(Boolean).join(' ');
}

/** One row per field, nested objects flattened as `parent.child`; `required` only for requests. */
function fieldRows(schema, document, request, prefix = '') {
  const rows = [];
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const field = `${prefix}${name}`;
    const columns = [`\`${field}\``, typeOf(property, document)];
    if (request) columns.push(required.has(name) ? 'yes' : '');
    columns.push(cell(describe(property)));
    rows.push(`| ${columns.join(' | ')} |`);
    if (property.properties && !refName(property))
      rows.push(...fieldRows(property, document, request, `${field}.`));
  }
  return rows;
}

function fieldTable(schema, document, request) {
  const rows = fieldRows(schema, document, request);
  if (rows.length === 0) return '';
  const head = request
    ? ['| field | type | required | description |', '| --- | --- | --- | --- |']
    : ['| field | type | description |', '| --- | --- | --- |'];
  return [...head, ...rows].join('\n');
}

function operationSection(method, path, op, document) {
  const out = [`### ${method.toUpperCase()} ${path}`, '', `${op.summary ?? ''}.`.replace(/\.\.$/, '.'), ''];
  if (op.description) out.push(op.description, '');
  const scope = op['x-required-scope'];
  if (!op.description?.includes('scope')) out.push(scope ? `Scope: \`${scope}\`.` : 'No API key needed.', '');
  const parameters = (op.parameters ?? []).filter((p) => !p.$ref);
  const headerRefs = (op.parameters ?? []).filter((p) => p.$ref);
  if (parameters.length > 0) {
    out.push('| parameter | in | type | description |', '| --- | --- | --- | --- |');
    for (const p of parameters)
      out.push(
        `| \`${p.name}\` | ${p.in} | ${typeOf(p.schema ?? {}, document)} | ${cell(describe(p.schema ?? {}, p.description))} |`,
      );
    out.push('');
  }
  if (headerRefs.length > 0 && !op.description?.includes('Idempotency-Key'))
    out.push('Accepts `Idempotency-Key` (see [Idempotency](#idempotency)).', '');
  const body = op.requestBody?.content?.['application/json'];
  if (body?.schema) {
    out.push('Request body:', '', fieldTable(body.schema, document, true), '');
    if (body.example !== undefined) out.push('```json', JSON.stringify(body.example, null, 2), '```', '');
  }
  out.push('| status | answer |', '| --- | --- |');
  const errors = [];
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (Number(status) >= 400) {
      errors.push(status);
      continue;
    }
    const schema = response.content?.['application/json']?.schema;
    const ref = refName(schema ?? {});
    const what = Number(status) < 400 && ref ? `${typeOf(schema, document)}. ` : '';
    const own = Object.entries(response.headers ?? {})
      .filter(([, h]) => !h.$ref)
      .map(([name, h]) => ` Header \`${name}\`: ${h.description}`)
      .join('');
    out.push(`| ${status} | ${cell(`${what}${response.description ?? ''}${own}`)} |`);
  }
  out.push('', `Errors: ${errors.join(', ')} (see [Errors](#errors)).`, '');
  return out.join('\n');
}

export function renderApiReference(document) {
  const out = [
    '<!-- Generated from docs/openapi.json by scripts/write-openapi.mjs: run `npm run openapi:write`, do not edit. -->',
    '',
    `# ${document.info.title} reference (version ${document.info.version})`,
    '',
    document.info.description,
    '',
    `Base path: \`${document.servers?.[0]?.url ?? ''}\`. A running service also serves this reference interactively at \`/docs\` and the OpenAPI document at \`${document.servers?.[0]?.url ?? ''}/openapi.json\` (committed as [openapi.json](openapi.json)).`,
    '',
    '## Authentication',
    '',
    document.components.securitySchemes.bearerAuth.description,
    '',
    '## Errors',
    '',
    'Every error is `{"error":{"code","message","param","request_id"}}`; `param` names the offending field, query parameter or header when there is one, and `request_id` equals the `Request-Id` header.',
    '',
    '| status | meaning |',
    '| --- | --- |',
  ];
  const seen = new Map();
  for (const item of Object.values(document.paths))
    for (const op of Object.values(item))
      for (const [status, response] of Object.entries(op.responses ?? {}))
        if (Number(status) >= 400 && !seen.has(status)) seen.set(status, response.description);
  for (const status of [...seen.keys()].sort()) out.push(`| ${status} | ${cell(seen.get(status))} |`);
  out.push('', '## Response headers', '', '| header | meaning |', '| --- | --- |');
  // Header components are named for code (RequestId); the answers that use them give the wire name.
  const headerNames = {};
  for (const item of Object.values(document.paths))
    for (const op of Object.values(item))
      for (const response of Object.values(op.responses ?? {}))
        for (const [name, header] of Object.entries(response.headers ?? {}))
          if (header.$ref) headerNames[header.$ref.split('/').at(-1)] = name;
  for (const [name, header] of Object.entries(document.components.headers ?? {}))
    out.push(`| \`${headerNames[name] ?? name}\` | ${cell(header.description)} |`);
  const idempotency = document.components.parameters?.IdempotencyKey;
  if (idempotency) out.push('', '## Idempotency', '', idempotency.description);

  for (const tag of document.tags ?? []) {
    out.push('', `## ${tag.name}`, '', tag.description, '');
    for (const [path, item] of Object.entries(document.paths))
      for (const method of METHODS) {
        const op = item[method];
        if (op?.tags?.includes(tag.name)) out.push(operationSection(method, path, op, document));
      }
  }

  out.push('## Objects', '');
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    out.push(`### ${name} object`, '');
    if (schema.description) out.push(schema.description, '');
    out.push(fieldTable(schema, document, false), '');
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
