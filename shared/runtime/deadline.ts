/**
 * Whether `work` settles within `ms`: true once it fulfils in time, false when the time runs out
 * first (the work goes on; nothing cancels it); a rejection in time is passed on. The timer is
 * cleared either way, so a finished wait holds no process open.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(resolve, ms, false));
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
