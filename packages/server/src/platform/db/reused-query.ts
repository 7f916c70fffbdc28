import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Stands for the `index`-th argument while a query is built and compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/** Where each parameter of the compiled query comes from: an argument, or a value of the query's own. */
type Source = { argument: number } | { value: unknown };

interface Reusable {
  query: CompiledQuery;
  sources: Source[];
}

/**
 * One query's compiled forms, per database (the adapter a Kysely instance and its transactions
 * share, so SQLite's and PostgreSQL's texts never mix) and per shape (an insert's set of columns).
 */
type Compiled = WeakMap<object, Map<string, Reusable>>;

function reusableFor<DB>(
  compiled: Compiled,
  db: Kysely<DB>,
  shape: string,
  arity: number,
  build: (slots: readonly unknown[]) => Compilable<unknown>,
): Reusable {
  const adapter = db.getExecutor().adapter;
  let byShape = compiled.get(adapter);
  if (!byShape) compiled.set(adapter, (byShape = new Map()));
  let reusable = byShape.get(shape);
  if (reusable) return reusable;
  const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
  const query = build(slots).compile();
  const sources: Source[] = query.parameters.map((p) =>
    p instanceof Slot ? { argument: p.index } : { value: p },
  );
  // Each argument must reach the query as a bound parameter, as it is (not read by the builder,
  // not folded into the SQL text); otherwise the compiled query would not fit another call's values.
  for (const slot of slots) {
    if (!sources.some((s) => 'argument' in s && s.argument === (slot as Slot).index))
      throw new Error(`reused query ${shape}: argument ${(slot as Slot).index} is not a parameter`);
  }
  reusable = { query, sources };
  byShape.set(shape, reusable);
  return reusable;
}

function run<DB, Row>(
  db: Kysely<DB>,
  reusable: Reusable,
  args: readonly unknown[],
): Promise<QueryResult<Row>> {
  const parameters = reusable.sources.map((s) => ('argument' in s ? args[s.argument] : s.value));
  return db.executeQuery({ ...reusable.query, parameters } as CompiledQuery<Row>);
}

/**
 * A query of the request path, built and compiled by Kysely once per database and then run with each
 * call's values. Building and compiling were ~4 µs of every query: a product read by id takes 9.5
 * instead of 13.5 µs in a hot loop (bench/README.md, issue 18). `build` gets stand-ins for the arguments and must pass each one to
 * Kysely as a value (`where(column, '=', arg)`, `values({ column: arg })`), never inspect it; a
 * stand-in that does not come out as a bound parameter is refused on first use.
 */
export function reusedQuery<DB, Args extends unknown[], Row>(
  name: string,
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
): (db: Kysely<DB>, ...args: Args) => Promise<QueryResult<Row>> {
  const compiled: Compiled = new WeakMap();
  return async (db, ...args) =>
    run<DB, Row>(
      db,
      reusableFor(compiled, db, name, args.length, (slots) => build(db, ...(slots as Args))),
      args,
    );
}

/**
 * An insert of one row, compiled once per database and set of columns: `build` gets a row of
 * stand-ins and passes it to `values` as it is. As with Kysely, a column whose value is undefined is
 * left out (its default applies).
 */
export function reusedInsert<DB, Row extends object>(
  name: string,
  build: (db: Kysely<DB>, row: Row) => Compilable<unknown>,
): (db: Kysely<DB>, row: Row) => Promise<QueryResult<unknown>> {
  const compiled: Compiled = new WeakMap();
  return async (db, row) => {
    const values = row as Record<string, unknown>;
    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const shape = `${name}(${columns.join(',')})`;
    const reusable = reusableFor(compiled, db, shape, columns.length, (slots) =>
      build(db, Object.fromEntries(columns.map((column, i) => [column, slots[i]])) as Row),
    );
    return run(
      db,
      reusable,
      columns.map((column) => values[column]),
    );
  };
}

/**
 * A query with lists of values (`where(column, 'in', list)`), compiled once per database and per
 * length of each list up to `upTo`, since each length is its own SQL text; longer lists, rarer, are
 * built each time. `build` gets lists of stand-ins and passes each one to Kysely as it is.
 */
export function reusedListQuery<DB, Lists extends readonly (readonly unknown[])[], Row>(
  name: string,
  build: (db: Kysely<DB>, ...lists: Lists) => Compilable<Row>,
  upTo = 4,
): (db: Kysely<DB>, ...lists: Lists) => Promise<QueryResult<Row>> {
  const compiled: Compiled = new WeakMap();
  return async (db, ...lists) => {
    if (lists.some((list) => list.length > upTo)) return db.executeQuery(build(db, ...lists).compile());
    const lengths = lists.map((list) => list.length);
    const reusable = reusableFor(compiled, db, `${name} ${lengths.join('x')}`, sum(lengths), (slots) => {
      let next = 0;
      const slotLists = lengths.map((length) => slots.slice(next, (next += length)));
      return build(db, ...(slotLists as unknown as Lists));
    });
    return run<DB, Row>(db, reusable, lists.flat());
  };
}

const sum = (numbers: readonly number[]) => numbers.reduce((total, n) => total + n, 0);
