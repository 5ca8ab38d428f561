/** `util`'s text codecs are the browser's own. */
export const TextDecoder = globalThis.TextDecoder;
export const TextEncoder = globalThis.TextEncoder;

export default { TextDecoder, TextEncoder };
