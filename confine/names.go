package confine

import (
	"fmt"
	"strings"
)

// windowsNameProblem says why Windows cannot hold a file or folder named
// name as named, or "": a device name (CON, NUL, COM1..., with any
// extension: nul.txt opens the device), a trailing dot or space (dropped,
// so the name would mean another file), or a character Windows refuses
// (":" would name a stream of another file).
func windowsNameProblem(name string) string {
	for _, c := range name {
		if c < 0x20 || strings.ContainsRune(`<>:"|?*`, c) {
			return fmt.Sprintf("its name %q holds %q, which Windows does not allow in a name", name, c)
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return fmt.Sprintf("its name %q ends in a dot or a space, which Windows drops (it would name another file)", name)
	}
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return fmt.Sprintf("%q is a device name Windows reserves (with any extension)", name)
	}
	if len(stem) > 3 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		switch stem[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return fmt.Sprintf("%q is a device name Windows reserves (with any extension)", name)
		}
	}
	return ""
}
