// The Firebase Realtime Database wire protocol v5 (see docs/realtime.md).
