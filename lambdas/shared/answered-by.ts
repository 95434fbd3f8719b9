/** `call`'s answer, or a `TimeoutError` once `deadline` (epoch ms) has passed without one; `call` is not stopped. */
export async function answeredBy<T>(call: Promise<T>, deadline: number, who = 'The table'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${who} did not answer before the deadline`), { name: 'TimeoutError' })), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([call, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
