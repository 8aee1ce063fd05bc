package daemon

import (
	"bufio"
	"bytes"
	"os"
	"strings"
)

// Confinement names what confines this process beyond its user: its
// namespaces (a container, bubblewrap), no_new_privs (which Landlock and
// unprivileged seccomp filters need) and its seccomp mode. A daemon serves
// only callers confined as it is (Hello): one started outside a sandbox
// would write for a sandboxed caller what its sandbox forbids, and one
// started inside would refuse an unconfined caller what it may do.
func Confinement() string {
	var b strings.Builder
	for _, ns := range []string{"mnt", "pid", "user", "net"} {
		link, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			link = "?"
		}
		b.WriteString(link)
		b.WriteByte(' ')
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.WriteString("status ?")
		return b.String()
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "Seccomp:") || strings.HasPrefix(line, "Seccomp_filters:") {
			b.WriteString(strings.Join(strings.Fields(line), ""))
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}
