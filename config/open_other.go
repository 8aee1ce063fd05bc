//go:build !unix

package config

import "os"

// openFile opens a configuration file for reading; the caller checked
// with Lstat that a noFollow name is no link, and checks that the file
// opened is the one it saw.
func openFile(path string, noFollow bool) (*os.File, error) {
	return os.Open(path)
}
