/**
 * Store.readOne: the first row matching a where clause, as plain typed data. The query builder compiles the
 * same SQL for every call of one call site, and compiling is most of a lookup's CPU (about 70 of 90 µs by
 * primary key on SQLite); so a where of plain values keeps its SQL by its shape (the entity, the where's
 * keys in order, the order by) and later calls only bind their values. Anything else (an operator, a null,
 * a list) goes through the query builder each time.
 */
import type { EntitySchema, QueryOrderMap } from "@mikro-orm/core";
import type { EntityManager, QBFilterQuery } from "@mikro-orm/sql";

/** A where clause's SQL and the parameters after the where's own values (the limit). */
interface Compiled {
  sql: string;
  tail: unknown[];
}

const isPlainValue = (value: unknown) => typeof value === "string" || typeof value === "number" || typeof value === "boolean";

// biome-ignore lint/suspicious/noExplicitAny: as in Store.readOne.
type AnySchema = EntitySchema<any, any>;

export function rowReader(em: () => EntityManager) {
  // One entry per call site's shape: a bounded set, fixed by the code.
  const compiled = new Map<string, Compiled | null>();
  return async <Entity extends object>(entity: EntitySchema<Entity, never> | AnySchema, where: QBFilterQuery<Entity>, orderBy?: QueryOrderMap<Entity>): Promise<Entity | null> => {
    const manager = em();
    const values = Object.values(where as object);
    const shape = values.every(isPlainValue) ? JSON.stringify([entity.meta.className, Object.keys(where as object), orderBy ?? null]) : undefined;
    const known = shape === undefined ? undefined : compiled.get(shape);
    if (known) {
      const row = await manager.getConnection("read").execute(known.sql, [...values, ...known.tail], "get");
      return row ? (manager.getDriver().mapResult(row as Entity, manager.getMetadata().get(entity as AnySchema)) as Entity) : null;
    }
    const query = manager
      .createQueryBuilder(entity as AnySchema)
      .select("*")
      .where(where)
      .limit(1);
    if (orderBy) query.orderBy(orderBy);
    // Decided on a call whose values differ from one another, so each parameter's place is unambiguous.
    if (shape !== undefined && known === undefined && new Set(values).size === values.length) {
      const { sql, params } = query.toQuery();
      // Kept only when the where's values are the first parameters, as given: then binding new ones in
      // their place is the query the builder would compile for them.
      const reusable = values.every((value, index) => Object.is(params[index], value));
      compiled.set(shape, reusable ? { sql, tail: params.slice(values.length) } : null);
    }
    return ((await query.execute("get")) as Entity | undefined) ?? null;
  };
}
