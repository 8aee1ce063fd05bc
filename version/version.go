// Package version holds the build's version, set at link time with
// -ldflags "-X github.com/sightline-lsp/sightline/version.Version=v1.2.3".
package version

// Version is the release version, "dev" for local builds.
var Version = "dev"
