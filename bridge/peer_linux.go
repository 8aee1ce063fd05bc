package bridge

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Confinement names what confines this process beyond its user: its
// namespaces (a container, bubblewrap), no_new_privs (which Landlock and
// unprivileged seccomp filters need) and its seccomp mode. A daemon serves
// only callers confined as it is: one started outside a sandbox would
// write for a sandboxed caller what its sandbox forbids, and one started
// inside would refuse an unconfined caller what it may do. What cannot be
// read is named "?", which no peer's confinement read from the kernel
// matches.
func Confinement() string {
	c, _ := confinementOf("/proc/self", true)
	return c
}

// confinementOf reads the confinement of the process whose /proc folder is
// proc: its namespaces' identities and the status lines of no_new_privs
// and seccomp. Unless lenient, what cannot be read is an error.
func confinementOf(proc string, lenient bool) (string, error) {
	var b strings.Builder
	for _, ns := range []string{"mnt", "pid", "user", "net"} {
		link, err := os.Readlink(proc + "/ns/" + ns)
		if err != nil {
			if !lenient {
				return "", fmt.Errorf("bridge: the %s namespace of %s: %w", ns, proc, err)
			}
			link = "?"
		}
		b.WriteString(link)
		b.WriteByte(' ')
	}
	status, err := os.ReadFile(proc + "/status")
	if err != nil {
		if !lenient {
			return "", fmt.Errorf("bridge: the status of %s: %w", proc, err)
		}
		b.WriteString("status ?")
		return b.String(), nil
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "Seccomp:") || strings.HasPrefix(line, "Seccomp_filters:") {
			b.WriteString(strings.Join(strings.Fields(line), ""))
			b.WriteByte(' ')
			found++
		}
	}
	if found == 0 && !lenient {
		return "", fmt.Errorf("bridge: no no_new_privs or seccomp state in the status of %s", proc)
	}
	return strings.TrimSpace(b.String()), nil
}

// peer is the process at the other end of a connection as the kernel
// tells it (SO_PEERCRED: the process that connected), held by a pidfd
// taken as the connection is accepted: its confinement, read later from
// /proc, is the connecting process's, not that of another process given
// its pid since.
type peer struct {
	uid, pid int
	pidfd    int // -1: none

	once        sync.Once
	confinement string
	err         error
}

// peerOf reads the connecting process's credentials and takes its pidfd:
// SO_PEERPIDFD (Linux 6.5) names the connecting process itself; before it,
// pidfd_open of its pid, which a process started since with the same pid
// (after the caller exited, before the accept) would answer instead.
func peerOf(nc net.Conn) (*peer, error) {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return nil, errors.New("bridge: not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("bridge: the peer's credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr, pidfdErr error
	pidfd := -1
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		pidfd, pidfdErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	}); err != nil {
		return nil, fmt.Errorf("bridge: the peer's credentials: %w", err)
	}
	if credErr != nil {
		return nil, fmt.Errorf("bridge: the peer's credentials: %w", credErr)
	}
	p := &peer{uid: int(cred.Uid), pid: int(cred.Pid), pidfd: -1}
	if pidfdErr == nil && pidfd >= 0 {
		p.pidfd = pidfd
	} else if p.pid > 0 {
		if fd, err := unix.PidfdOpen(p.pid, 0); err == nil {
			p.pidfd = fd
		}
	}
	return p, nil
}

// sameUser: the peer runs as this process's user.
func (p *peer) sameUser() bool { return p != nil && p.uid == os.Getuid() }

// readConfinement reads the peer's confinement from the kernel, once.
func (p *peer) readConfinement() (string, error) {
	p.once.Do(func() { p.confinement, p.err = p.read() })
	return p.confinement, p.err
}

func (p *peer) read() (string, error) {
	if p.pid <= 0 {
		// A peer in a pid namespace above this process's has no pid here.
		return "", errors.New("the kernel names no process of this pid namespace as the caller")
	}
	proc := "/proc/" + strconv.Itoa(p.pid)
	if p.pidfd < 0 {
		// No pidfd (Linux before 5.3): the process's start time, the same
		// before and after the reading, says one process was read.
		before, err := startTime(proc)
		if err != nil {
			return "", err
		}
		c, err := confinementOf(proc, false)
		if err != nil {
			return "", err
		}
		if after, err := startTime(proc); err != nil || after != before {
			return "", fmt.Errorf("the caller (pid %d) exited while its confinement was read", p.pid)
		}
		return c, nil
	}
	c, err := confinementOf(proc, false)
	if err != nil {
		return "", err
	}
	// Still alive after the reading, and still that pid: the pid named the
	// caller all along (a pid is not given again while its process lives).
	if err := unix.PidfdSendSignal(p.pidfd, 0, nil, 0); err != nil {
		return "", fmt.Errorf("the caller (pid %d) exited while its confinement was read: %w", p.pid, err)
	}
	if got := pidfdPid(p.pidfd); got != 0 && got != p.pid {
		return "", fmt.Errorf("the caller (pid %d) is gone (its pidfd names pid %d)", p.pid, got)
	}
	return c, nil
}

// startTime is a process's start time (in clock ticks since boot), from
// the 22nd field of its stat.
func startTime(proc string) (string, error) {
	b, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return "", fmt.Errorf("bridge: the stat of %s: %w", proc, err)
	}
	// The command's name, in parentheses, may hold spaces: fields count
	// from after it.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 20 {
		return "", fmt.Errorf("bridge: the stat of %s has no start time", proc)
	}
	return f[19], nil
}

// pidfdPid is the pid a pidfd's process has in this process's pid
// namespace, from its fdinfo (-1 when it exited, 0 when unknown: Linux
// 5.3's fdinfo has none).
func pidfdPid(fd int) int {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}

// close lets go of the pidfd, after a reading under way (once waits
// for it); none starts after.
func (p *peer) close() {
	if p == nil {
		return
	}
	p.once.Do(func() { p.err = errors.New("the connection is closed") })
	if p.pidfd >= 0 {
		_ = unix.Close(p.pidfd)
		p.pidfd = -1
	}
}
