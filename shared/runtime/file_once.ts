/**
 * A file made once and then only read, by however many processes start on one DATA_DIR at the
 * same moment (instances sharing it): the text is written to a file of its own first and then
 * linked to `path` in one step, so a reader never finds it empty or half written, and of two
 * makers the second reads the first one's text.
 */
export async function readOrCreateTextFile(
  path: string,
  make: () => string,
  mode: number,
): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const text = make();
  const draft = `${path}.${crypto.randomUUID()}.new`;
  await Deno.writeTextFile(draft, text, { createNew: true, mode });
  try {
    await Deno.link(draft, path);
    return text;
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    return await Deno.readTextFile(path);
  } finally {
    await Deno.remove(draft).catch(() => {});
  }
}
