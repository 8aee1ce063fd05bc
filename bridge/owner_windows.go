package bridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// sharedBase is the short folder of last resort: the user's own temporary
// folder (%TEMP%, under the user's profile).
func sharedBase() string {
	return filepath.Join(os.TempDir(), "sightline")
}

// ownerOnly is the Windows form of a 0700 folder owned by the caller: the
// folder must be owned by this user (or by the Administrators group, which
// owns what an elevated process creates), and its access list is replaced by
// a protected one granting this user alone full control, inherited by the
// sockets made in it. Connecting to an AF_UNIX socket needs write access to
// its file, so nobody else can reach a server through it.
func ownerOnly(dir string, _ os.FileInfo) error {
	me, err := currentUser()
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("bridge: read the owner of %s: %w", dir, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("bridge: read the owner of %s: %w", dir, err)
	}
	if !owner.Equals(me) && !owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
		return fmt.Errorf("bridge: %s belongs to another user", dir)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.SET_ACCESS,
		Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(me),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("bridge: build the access list of %s: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("bridge: %s cannot be made owner-only: %w", dir, err)
	}
	return nil
}

// currentUser is the SID of the user this process runs as.
func currentUser() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("who is the current user: %w", err)
	}
	return u.User.Sid.Copy()
}

// restrictSocket has nothing to do: the socket inherits the folder's access
// list, and file modes do not exist on Windows.
func restrictSocket(string) error { return nil }

// refused reports whether a dial error means nobody listens: the socket is
// a leftover of a server that was killed.
func refused(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED)
}
