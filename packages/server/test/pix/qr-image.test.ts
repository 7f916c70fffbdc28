import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { renderQrPng } from '../../src/platform/brcode/index.js';
import { brCodes } from './pix-test-helpers.js';

// jsqr ships a UMD bundle whose module.exports is the function itself, while its typings declare
// `export default`; under NodeNext, TypeScript therefore sees the function one level down.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

function decodePng(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

const vectors = [
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
  '00020126730014br.gov.bcb.pix0136e57b119f-3f91-4734-93f0-29d6a9c02b0a0211CestaLivres520400005303986540522.005802BR5913Milena Savini6009Sao Paulo622605221wDQuczihqxiuSkkkLu0aS63040EA9',
];

describe('QR image', () => {
  it.each(vectors)('a PNG that decodes to exactly the payload: %s', async (payload) => {
    const { png, base64 } = await renderQrPng(payload);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(base64).toBe(png.toString('base64'));
    expect(base64).not.toMatch(/^data:/);
    expect(decodePng(Buffer.from(base64, 'base64'))).toBe(payload);
  });

  it('random BR Codes (longest fields included) decode back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        brCodes({
          key: fc.oneof(fc.uuid(), fc.constant(`${'x'.repeat(60)}@example.com.br`)),
          name: fc.constantFrom('Padaria e Confeitaria São João Batista', 'Zé', 'Açaí da Esquina Ltda'),
          city: fc.constantFrom('São José dos Campos', 'Rio', 'Florianópolis'),
        }),
        async (payload) => {
          expect(decodePng((await renderQrPng(payload)).png)).toBe(payload);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('reports how long one render takes (informational, no assertion on time)', async () => {
    const payload = vectors[2]!;
    for (let i = 0; i < 5; i++) await renderQrPng(payload); // warm-up
    const runs = 200;
    const start = process.hrtime.bigint();
    let bytes = 0;
    for (let i = 0; i < runs; i++) bytes = (await renderQrPng(payload)).png.length;
    const msPerRender = Number(process.hrtime.bigint() - start) / 1e6 / runs;
    const { width } = PNG.sync.read((await renderQrPng(payload)).png);
    console.log(
      `renderQrPng: ${msPerRender.toFixed(2)} ms per render (mean of ${runs}), ${bytes} bytes PNG, ${width}x${width} px`,
    );
    expect(bytes).toBeGreaterThan(0);
  });
});
