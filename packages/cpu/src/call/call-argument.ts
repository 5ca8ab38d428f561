/**
 * One argument of a guest call: an integer passed in a register, or bytes copied into guest memory
 * whose address is passed (`str:` and `buf:` on the command line; `bytes` for programmatic callers).
 */
export type CallArgument =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'str'; readonly text: string }
  | { readonly kind: 'buf'; readonly size: number }
  | { readonly kind: 'bytes'; readonly data: Uint8Array };

/** The bytes a pointer argument places in guest memory (a string gets its NUL), or undefined for an int. */
export function argumentBytes(arg: CallArgument): Uint8Array | undefined {
  switch (arg.kind) {
    case 'int':
      return undefined;
    case 'str':
      return new TextEncoder().encode(`${arg.text}\0`);
    case 'buf':
      return new Uint8Array(arg.size);
    case 'bytes':
      return arg.data;
  }
}
