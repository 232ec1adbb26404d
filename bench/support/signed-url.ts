// The signed storage URL a cloud /api/view answers with (302), for curl to fetch the same bytes.
export async function signedUrl(url: string, key: string, ref: { filename: string; subfolder: string; type: string }): Promise<string> {
  const query = new URLSearchParams({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type });
  const response = await fetch(`${url}/api/view?${query}`, { headers: { 'X-API-Key': key }, redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`expected a 302 from /api/view, got ${response.status}`);
  return new URL(location, url).toString();
}
