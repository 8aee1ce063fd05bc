package daemon

// onByDefault: on Linux the CLI starts the workspace's daemon unless
// SIGHTLINE_DAEMON=0.
const onByDefault = true
