package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "a57fb00c1234567890abcdef"}, {Key: "vcs.time", Value: "2026-11-29T11:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		stamp string
		info  *debug.BuildInfo
		want  string
	}{
		{"v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}}, "v1.2.3"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}, Settings: vcs}, "v0.4.0"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "devel a57fb00c1234 2026-11-29T11:00:00Z (modified)"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs[:2]}, "devel a57fb00c1234 2026-11-29T11:00:00Z"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"dev", nil, "dev"},
	} {
		if got := fromBuild(c.stamp, c.info); got != c.want {
			t.Errorf("fromBuild(%q, %+v) = %q, want %q", c.stamp, c.info, got, c.want)
		}
	}
}

func TestDateFrom(t *testing.T) {
	vcs := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-11-29T23:30:00-02:00"}}}
	for _, c := range []struct {
		stamp string
		info  *debug.BuildInfo
		want  string
	}{
		{"2026-01-02T03:04:05Z", vcs, "2026-01-02"},
		{"", vcs, "2026-11-30"},
		{"", &debug.BuildInfo{}, ""},
		{"", nil, ""},
	} {
		if got := dateFrom(c.stamp, c.info); got != c.want {
			t.Errorf("dateFrom(%q, %+v) = %q, want %q", c.stamp, c.info, got, c.want)
		}
	}
}
