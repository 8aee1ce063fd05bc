// Command release-check reads .goreleaser.yaml with GoReleaser's own
// configuration loader (strict: an unknown or misspelt field fails, as
// `goreleaser check` fails it) and checks what the install lines, the Mason
// package and the editors depend on: the six targets, the archive names and
// formats, the checksum file, and the version stamp, which it applies in a
// build of linux/amd64 and reads back from `sightline --version`.
//
// It stands in CI for building GoReleaser itself (about 12 CPU-minutes on
// a clean machine): only the configuration package is compiled here.
//
//	go run . REPO_ROOT
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/goreleaser/goreleaser/v2/pkg/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: release-check REPO_ROOT")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "release-check:", err)
		os.Exit(1)
	}
}

func check(root string) error {
	p, err := config.Load(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		return fmt.Errorf(".goreleaser.yaml: %w", err)
	}
	if len(p.Builds) != 1 || len(p.Archives) != 1 {
		return fmt.Errorf("want one build and one archive, have %d and %d", len(p.Builds), len(p.Archives))
	}
	b, a := p.Builds[0], p.Archives[0]
	var problems []string
	want := func(ok bool, format string, args ...any) {
		if !ok {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	want(b.Main == "./cmd/sightline" && b.Binary == "sightline", "build: main %q binary %q", b.Main, b.Binary)
	want(sameSet(b.Goos, []string{"linux", "darwin", "windows"}) && sameSet(b.Goarch, []string{"amd64", "arm64"}),
		"build: targets %v × %v, want linux, darwin, windows × amd64, arm64 (the install lines and the VS Code packages name them)", b.Goos, b.Goarch)
	want(slices.Contains(b.Env, "CGO_ENABLED=0"), "build: CGO_ENABLED=0 missing from env %v", b.Env)
	want(slices.Contains(b.BuildDetails.Flags, "-trimpath"), "build: -trimpath missing from flags %v", b.BuildDetails.Flags)
	const stamp = "-X github.com/sightline-lsp/sightline/version.Version={{ .Version }}"
	ldflags := strings.Join(b.BuildDetails.Ldflags, " ")
	want(strings.Contains(ldflags, stamp), "build: ldflags %q do not stamp the version (%s)", ldflags, stamp)
	const dateStamp = "-X github.com/sightline-lsp/sightline/version.Stamped={{ .CommitDate }}"
	want(strings.Contains(ldflags, dateStamp), "build: ldflags %q do not stamp the source date the manual page shows (%s)", ldflags, dateStamp)
	want(a.NameTemplate == "{{ .ProjectName }}_{{ .Os }}_{{ .Arch }}" && p.ProjectName == "sightline",
		"archive: name %q (project %q): the install lines fetch sightline_<os>_<arch>", a.NameTemplate, p.ProjectName)
	want(slices.Equal(a.Formats, []string{"tar.gz"}), "archive: formats %v, want [tar.gz]", a.Formats)
	zip := false
	for _, o := range a.FormatOverrides {
		zip = zip || o.Goos == "windows" && slices.Equal(o.Formats, []string{"zip"})
	}
	want(zip, "archive: Windows archives must be zip")
	want(p.Checksum.NameTemplate == "checksums.txt" && p.Checksum.Algorithm == "sha256", "checksum: %q %q", p.Checksum.NameTemplate, p.Checksum.Algorithm)
	if len(problems) > 0 {
		return fmt.Errorf(".goreleaser.yaml:\n  %s", strings.Join(problems, "\n  "))
	}

	// The stamp, applied as GoReleaser applies it.
	const version = "0.0.0-snapshot"
	dir, err := os.MkdirTemp("", "release-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "sightline")
	args := append([]string{"build", "-o", bin}, b.BuildDetails.Flags...)
	const commitDate = "2026-01-02T03:04:05Z"
	stamped := strings.NewReplacer("{{ .Version }}", version, "{{ .CommitDate }}", commitDate).Replace(ldflags)
	args = append(args, "-ldflags="+stamped, b.Main)
	build := exec.Command("go", args...)
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	build.Env = append(os.Environ(), append(b.Env, "GOOS=linux", "GOARCH=amd64")...)
	if err := build.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), version) {
		return fmt.Errorf("sightline --version of a build stamped %s: %q %v", version, out, err)
	}
	man, err := exec.Command(bin, "man").Output()
	if err != nil || !strings.HasPrefix(string(man), `.TH SIGHTLINE 1 "2026-01-02"`) {
		return fmt.Errorf("sightline man of a build stamped %s: %.60q %v", commitDate, man, err)
	}
	fmt.Printf(".goreleaser.yaml: read by GoReleaser %s's loader; six targets, archives, checksums and the version stamp (%s) as the install lines expect\n", goreleaserVersion(), strings.TrimSpace(string(out)))
	return nil
}

// goreleaserVersion is the GoReleaser module this program was built with.
func goreleaserVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/goreleaser/goreleaser/v2" {
				return d.Version
			}
		}
	}
	return "(unknown)"
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}
