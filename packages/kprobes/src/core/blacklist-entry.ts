/** One blacklisted range. */
export interface BlacklistEntry {
  readonly start: bigint;
  readonly end: bigint;
  readonly name: string;
}
