//go:build windows

package workspace

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// onDisk spells each name of p (a clean path on a drive) that exists as its
// folder lists it, up to the first that does not exist (the rest as
// given): one key per file whatever the case it is named in, and a new
// file keeps the case its creator gave it. A name found only as another
// name's short (8.3) form is kept as given. Links are not followed: a path
// through one stays that path.
func onDisk(p string) string {
	vol := filepath.VolumeName(p)
	if len(vol) != 2 { // a drive; UNC shares are left as named
		return p
	}
	parts := strings.Split(strings.TrimPrefix(p[len(vol):], `\`), `\`)
	out := vol
	for i, name := range parts {
		if name == "" || strings.ContainsAny(name, "*?") { // FindFirstFile would take them as patterns
			return out + `\` + strings.Join(parts[i:], `\`)
		}
		var fd windows.Win32finddata
		path, err := windows.UTF16PtrFromString(out + `\` + name)
		if err != nil {
			return p
		}
		h, err := windows.FindFirstFile(path, &fd)
		if err != nil {
			return out + `\` + strings.Join(parts[i:], `\`)
		}
		windows.FindClose(h)
		if found := windows.UTF16ToString(fd.FileName[:]); strings.EqualFold(found, name) {
			name = found
		}
		out += `\` + name
	}
	return out
}
