// The package is "type": "module"; this nested package.json makes Node load the CommonJS build's
// .js files as CommonJS.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

writeFileSync(join(process.argv[2], 'package.json'), '{ "type": "commonjs" }\n');
