//go:build !linux

package bridge

import "net"

// Confinement names what confines this process: nothing known here (see
// the Linux one).
func Confinement() string { return "" }

// peer is the process at the other end of a connection: the kernel tells
// nothing more than the socket's permissions (owner-only) do here.
type peer struct{}

func peerOf(net.Conn) (*peer, error) { return &peer{}, nil }

// sameUser: only the user's processes reach its owner-only sockets.
func (p *peer) sameUser() bool { return true }

func (p *peer) readConfinement() (string, error) { return "", nil }

func (p *peer) close() {}
