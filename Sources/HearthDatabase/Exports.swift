// Realtime engine: listeners, fan-out, onDisconnect (see docs/realtime.md, "Fan-out engine").
