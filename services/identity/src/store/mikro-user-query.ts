/**
 * list-users in SQL, for PostgreSQL and SQLite alike (the semantics of user-query.ts). Search is a LIKE on
 * lower(column) with the value's wildcards escaped ('!' as the escape character, which both dialects take);
 * emails are stored lower-case, so email search uses the column and its unique index. The indexes that
 * serve each combination are those of migrations 0005-user-admin and 0006-user-name-prefix
 * (docs/decisions.md, "list-users").
 */
import type { EntityManager } from "@mikro-orm/sql";
import { UserEntity } from "./entities.js";
import type { UserQuery } from "./identity-store.js";

const OPERATORS = { eq: "$eq", ne: "$ne", lt: "$lt", lte: "$lte", gt: "$gt", gte: "$gte" } as const;
const COLUMNS: Record<string, string> = { name: "name", email: "email" };

/** Escapes LIKE's wildcards and the escape character itself. */
const escapeLike = (value: string) => value.replace(/[!%_]/g, (c) => `!${c}`);

function likePattern(query: NonNullable<UserQuery["search"]>): string {
  const value = escapeLike(query.value.toLowerCase());
  if (query.operator === "starts_with") return `${value}%`;
  if (query.operator === "ends_with") return `%${value}`;
  return `%${value}%`;
}

export function listUsersQuery(em: EntityManager, query: UserQuery) {
  const build = () => {
    const qb = em.createQueryBuilder(UserEntity, "u");
    if (query.search) {
      const column = COLUMNS[query.search.field]!;
      // Emails are stored lower-case: comparing the bare column keeps its index usable.
      const target = column === "email" ? `"u"."email"` : `lower("u"."${column}")`;
      qb.andWhere(`${target} like ? escape '!'`, [likePattern(query.search)]);
    }
    if (query.filter && query.filter.value !== null) {
      qb.andWhere({ [query.filter.field]: { [OPERATORS[query.filter.operator]]: query.filter.value } } as never);
    }
    return qb;
  };
  const direction = query.sort?.direction === "desc" ? "desc nulls first" : "asc nulls last";
  const page = build()
    .orderBy([{ [query.sort?.field ?? "createdAt"]: direction } as never, { id: "asc" }])
    .limit(query.limit)
    .offset(query.offset);
  /**
   * How many rows match, up to countLimit (0: all). The bounded count reads at most countLimit + 1 matches
   * (a LIMITed subquery), so a broad search costs a bounded scan instead of counting every match.
   */
  const count = async (): Promise<{ total: number; totalIsLowerBound: boolean }> => {
    if (!query.countLimit) return { total: await build().getCount(), totalIsLowerBound: false };
    const { sql, params } = build().select(["id"]).limit(query.countLimit + 1).toQuery();
    const [row] = await em.execute<Array<{ n: number | string }>>(`select count(*) as "n" from (${sql}) as "matching"`, [...params]);
    const found = Number(row?.n ?? 0);
    return found > query.countLimit ? { total: query.countLimit, totalIsLowerBound: true } : { total: found, totalIsLowerBound: false };
  };
  return { page, count };
}
