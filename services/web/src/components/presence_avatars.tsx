import type { LiveEditorSession, Peer } from "../editor/session.ts";

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return "?";
  const first = Array.from(parts[0])[0] ?? "";
  const last = parts.length > 1 ? Array.from(parts[parts.length - 1])[0] ?? "" : "";
  return (first + last).toUpperCase();
}

/** Everyone on the post right now, as initials in their cursor colours. */
export function PresenceAvatars({ session }: { session: LiveEditorSession }) {
  const peers = session.peers.value;
  const label = peers.length === 1
    ? "Only you are editing"
    : `${peers.length} people editing: ${peers.map(peerName).join(", ")}`;
  return (
    <ul class="presence-avatars" aria-label={label}>
      {peers.map((p) => (
        <li
          key={p.clientId}
          class={`presence-avatar cp-avatar-${p.colorIndex}`}
          title={peerName(p)}
        >
          <span aria-hidden="true">{initials(p.name)}</span>
          <span class="visually-hidden">{peerName(p)}</span>
        </li>
      ))}
    </ul>
  );
}

function peerName(p: Peer): string {
  return p.self ? `${p.name} (you)` : p.name;
}
