import { describe, it, expect } from 'vitest';
import {
  isValidCustomerDocument,
  validateCustomerDocument,
} from '../../src/domain/kernel/customer-document.js';

describe('validateCustomerDocument: valid CPF and CNPJ', () => {
  it.each([
    ['529.982.247-25', 'cpf', '52998224725'],
    ['52998224725', 'cpf', '52998224725'],
    ['111.444.777-35', 'cpf', '11144477735'],
    ['123.456.789-09', 'cpf', '12345678909'],
    [' 123.456.789-09 ', 'cpf', '12345678909'],
    ['11.222.333/0001-81', 'cnpj', '11222333000181'],
    ['12.345.678/0001-95', 'cnpj', '12345678000195'],
    ['00.000.000/0001-91', 'cnpj', '00000000000191'], // Banco do Brasil
    ['33000167000101', 'cnpj', '33000167000101'], // Petrobras
    // Alphanumeric CNPJ (IN RFB 2.229/2024), Receita Federal's published example.
    ['12.ABC.345/01DE-35', 'cnpj', '12ABC34501DE35'],
    ['12abc34501de35', 'cnpj', '12ABC34501DE35'],
  ])('%j is a valid %s', (input, kind, normalized) => {
    expect(validateCustomerDocument(input)).toEqual({ valid: true, kind, normalized });
    expect(isValidCustomerDocument(input)).toBe(true);
  });
});

describe('validateCustomerDocument: rejected', () => {
  it.each([
    ['529.982.247-24', /check digits/],
    ['52998224752', /check digits/],
    ['123.456.789-00', /check digits/],
    ['11.222.333/0001-82', /check digits/],
    ['12.345.678/0001-59', /check digits/],
    ['12.ABC.345/01DE-36', /check digits/],
    ['111.111.111-11', /repeated/],
    ['00000000000', /repeated/],
    ['99999999999', /repeated/],
    ['00.000.000/0000-00', /repeated/],
    ['11111111111111', /repeated/],
    ['', /CPF .* or CNPJ/],
    ['1234567890', /CPF .* or CNPJ/],
    ['123456789012', /CPF .* or CNPJ/],
    ['123456789012345', /CPF .* or CNPJ/],
    ['529982247-25', /CPF .* or CNPJ/], // half-masked
    ['529.982.247.25', /CPF .* or CNPJ/],
    ['11.222.333/0001-8A', /CPF .* or CNPJ/], // check digits are always digits
    ['5299822472A', /CPF .* or CNPJ/], // a CPF has no letters
    ['52998224725x', /CPF .* or CNPJ/],
  ])('%j', (input, reason) => {
    const result = validateCustomerDocument(input);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.reason).toMatch(reason);
  });

  // Numeric documents only: in an alphanumeric CNPJ a letter and a digit can differ by 11
  // ('C' counts 19, '8' counts 8), which mod 11 cannot see. That is the official algorithm.
  it.each(['52998224725', '11144477735', '11222333000181', '33000167000101'])(
    'any single-digit change to %s is caught',
    (valid) => {
      for (let i = 0; i < valid.length; i++) {
        for (const c of '0123456789') {
          if (c === valid[i]) continue;
          expect(isValidCustomerDocument(valid.slice(0, i) + c + valid.slice(i + 1))).toBe(false);
        }
      }
    },
  );
});
