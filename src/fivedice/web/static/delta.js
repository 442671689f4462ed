// The room page takes deltas (it says so in its hello): after a first whole state, each change comes as what
// changed since the state the page has (see web/snapshot.py). applyDelta makes the new state from the old one
// without changing the old one (the page compares the two to tell what moved).

// The room after a "delta" message, or null when the message is not from the version the page has (it then
// asks for the whole state again).
export function applyDelta(room, msg) {
  if (!room || room.version !== msg.from) return null;
  const next = { ...room, ...msg.state };
  if (msg.game) next.game = { ...room.game, ...msg.game };
  if (msg.events) {
    next.events = room.events.slice(msg.events.drop).concat(msg.events.add);
    next.event_keys = room.event_keys.slice(msg.events.drop).concat(msg.events.keys);
  }
  return next;
}
