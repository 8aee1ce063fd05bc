// Package version holds the build's version: a release's stamp, set at link
// time with -ldflags "-X github.com/sightline-lsp/sightline/version.Version=v1.2.3",
// else what the Go toolchain recorded in the binary's build information.
package version

import (
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Version is the release stamp; "dev" when the build was not stamped.
var Version = "dev"

// Stamped is the release's source date (RFC 3339), stamped with Version:
// -X github.com/sightline-lsp/sightline/version.Stamped={{ .CommitDate }}.
var Stamped = ""

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

// Date is the date of the build's source, YYYY-MM-DD (what the manual page
// shows): the release's stamp, else the VCS revision's time; "" when the
// build recorded neither.
func Date() string { return date() }

var date = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return dateFrom(Stamped, info)
})

func dateFrom(stamp string, info *debug.BuildInfo) string {
	at := stamp
	if at == "" && info != nil {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" {
				at = s.Value
			}
		}
	}
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		return t.UTC().Format(time.DateOnly)
	}
	return ""
}
