/**
 * list-users in SQL, for PostgreSQL and SQLite alike (the semantics of user-query.ts). Search, and the filter's
 * contains, starts_with and ends_with, are a LIKE on lower(column) with the value's wildcards escaped ('!' as
 * the escape character, which both dialects take);
 * emails are stored lower-case, so email search uses the column and its unique index. The indexes that
 * serve each combination are those of migrations 0005 to 0008 (docs/adr/0039-list-users-queries.md).
 *
 * Two plans. With a search or a filter and a bounded count, the matches are read first, through whatever
 * index serves the search or filter, at most countLimit + 1 of them: one query counts them (a window count)
 * and sorts the page out of them (a top-N sort). That answers page and total in one bounded read however
 * late the matches come in the sort order. When more than countLimit match, the matches are dense enough
 * for the other plan, which walks the sort order's index and stops at the page's end, with the total a
 * lower bound. Without a search or filter every row matches, so the walk and a bounded count run at once.
 */
import type { EntityManager } from "@mikro-orm/sql";
import type { Dialect } from "@auth-platform/runtime/store";
import { UserEntity, type UserRow } from "./entities.js";
import { isTextOperator, type SearchOperator, type UserQuery, type UserQueryField } from "./identity-store.js";

const OPERATORS = { eq: "$eq", ne: "$ne", lt: "$lt", lte: "$lte", gt: "$gt", gte: "$gte", in: "$in", not_in: "$nin" } as const;

/** Escapes LIKE's wildcards and the escape character itself. */
const escapeLike = (value: string) => value.replace(/[!%_]/g, (c) => `!${c}`);

function likePattern(query: { operator: SearchOperator; value: string }): string {
  const value = escapeLike(query.value.toLowerCase());
  if (query.operator === "starts_with") return `${value}%`;
  if (query.operator === "ends_with") return `%${value}`;
  return `%${value}%`;
}

export interface UserListing {
  rows: UserRow[];
  total: number;
  totalIsLowerBound: boolean;
}

export async function listUsersInSql(em: EntityManager, dialect: Dialect, query: UserQuery): Promise<UserListing> {
  // PostgreSQL stores the lower-cased name (migration 0007); SQLite's lower() is cheap (ASCII only).
  const lowerName = dialect === "postgresql" ? `"u"."name_lower"` : `lower("u"."name")`;
  const columnOf = (field: UserQueryField) => `"u"."${em.getMetadata().get(UserEntity).properties[field]!.fieldNames[0]}"`;
  /** What a text match compares: the column lower-cased, the way search's indexes serve it for email and name. */
  const lowered = (field: UserQueryField) => (field === "email" ? `"u"."email"` : field === "name" ? lowerName : `lower(${columnOf(field)})`);
  const build = () => {
    const qb = em.createQueryBuilder(UserEntity, "u");
    if (query.search) {
      // Emails are stored lower-case: comparing the bare column keeps its indexes usable.
      qb.andWhere(`${lowered(query.search.field)} like ? escape '!'`, [likePattern(query.search)]);
    }
    if (query.filter && query.filter.value !== null && isTextOperator(query.filter.operator)) {
      qb.andWhere(`${lowered(query.filter.field)} like ? escape '!'`, [likePattern({ operator: query.filter.operator, value: String(query.filter.value) })]);
    } else if (query.filter && query.filter.value !== null) {
      const { field, operator, value } = query.filter;
      // The boolean columns are NOT NULL: `ne b` is `eq !b`, an equality an index range serves.
      const condition = typeof value === "boolean" && operator === "ne" ? { $eq: !value } : { [OPERATORS[operator as keyof typeof OPERATORS]]: value };
      qb.andWhere({ [field]: condition } as never);
    }
    return qb;
  };
  const sortField = query.sort?.field ?? "createdAt";
  const direction = query.sort?.direction === "desc" ? "desc nulls first" : "asc nulls last";
  const walk = () =>
    build()
      .orderBy([{ [sortField]: direction } as never, { id: "asc" }])
      .limit(query.limit)
      .offset(query.offset)
      .getResultList() as Promise<UserRow[]>;

  /** A number of matches read with at most countLimit + 1 rows, as the answer's total. */
  const bounded = (found: number) => (found > query.countLimit ? { total: query.countLimit, totalIsLowerBound: true } : { total: found, totalIsLowerBound: false });
  /** How many rows match, up to countLimit (0: all), reading at most countLimit + 1 of them. */
  const count = async (): Promise<Omit<UserListing, "rows">> => {
    if (!query.countLimit) return { total: await build().getCount(), totalIsLowerBound: false };
    const { sql, params } = build()
      .select(["id"])
      .limit(query.countLimit + 1)
      .toQuery();
    const [row] = await em.execute<Array<{ n: number | string }>>(`select count(*) as "n" from (${sql}) as "matching"`, [...params]);
    return bounded(Number(row?.n ?? 0));
  };

  if (!query.countLimit || (!query.search && !query.filter)) {
    const [rows, counted] = await Promise.all([walk(), count()]);
    return { rows, ...counted };
  }

  // Matches first: the subquery's LIMIT keeps the database from walking the sort order's index instead.
  const column = `"m"."${em.getMetadata().get(UserEntity).properties[sortField]!.fieldNames[0]}"`;
  const { sql, params } = build()
    .limit(query.countLimit + 1)
    .toQuery();
  const found = await em.execute<Array<Record<string, unknown> & { matching_count: number | string }>>(
    `select "m".*, count(*) over () as "matching_count" from (${sql}) as "m" order by ${column} ${direction}, "m"."id" asc limit ? offset ?`,
    [...params, query.limit, query.offset],
  );
  // A page past the last match has no row to carry the window count: count on its own then.
  if (found.length === 0 && query.offset === 0) return { rows: [], total: 0, totalIsLowerBound: false };
  const counted = found.length > 0 ? bounded(Number(found[0]!.matching_count)) : await count();
  if (counted.totalIsLowerBound) return { rows: await walk(), ...counted };
  const rows = found.map(({ matching_count: _, ...row }) => em.map(UserEntity, row) as UserRow);
  return { rows, ...counted };
}
