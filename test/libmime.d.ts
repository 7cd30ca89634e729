// libmime ships no types; the tests use one function of it.
declare module 'libmime' {
  const libmime: { decodeWords(s: string): string };
  export default libmime;
}
