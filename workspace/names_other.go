//go:build !windows

package workspace

// onDisk is p: names that differ by case are different names here.
func onDisk(p string) string { return p }
