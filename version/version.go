// Package version holds the build's version: a release's stamp, set at link
// time with -ldflags "-X github.com/sightline-lsp/sightline/version.Version=v1.2.3",
// else what the Go toolchain recorded in the binary's build information.
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Version is the release stamp; "dev" when the build was not stamped.
var Version = "dev"

// String is the version every door shows (--version, the language server's
// serverInfo, the bridge's status, :checkhealth, VS Code's output): the
// release stamp; else the module version `go install …@vX.Y.Z` recorded;
// else, for a build from a checkout, "devel" and the VCS revision, its time
// and whether the tree was modified; else "dev".
func String() string { return str() }

var str = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return fromBuild(Version, info)
})

// fromBuild is String for a stamp and the build information.
func fromBuild(stamp string, info *debug.BuildInfo) string {
	if stamp != "dev" && stamp != "" {
		return stamp
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	var b strings.Builder
	b.WriteString("devel ")
	b.WriteString(rev)
	if at != "" {
		b.WriteString(" " + at)
	}
	if modified {
		b.WriteString(" (modified)")
	}
	return b.String()
}
