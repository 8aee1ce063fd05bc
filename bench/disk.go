package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/internal/gosrc"
)

// diskFloor measures what replacing a 200,000-line (6.6 MB) file atomically
// costs on the disk of dir, whoever does it: write a copy beside it, sync
// it, rename it over the file (its old copy freed in the rename, or left
// to a close after it), sync the folder; and hashing the bytes (SHA-256,
// what a write's answer names the new file by). A one-line edit that
// writes the disk atomically costs at least this.
func diskFloor(dir string, runs int) error {
	src, err := gosrc.Lines(200_000)
	if err != nil {
		return err
	}
	text := []byte(strings.Join(src, ""))
	tmp, err := os.MkdirTemp(dir, "sightline-disk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	target, temp := filepath.Join(tmp, "big.go"), filepath.Join(tmp, "big.go.tmp")
	if err := os.WriteFile(target, text, 0o644); err != nil {
		return err
	}
	folder, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer folder.Close()
	names := []string{"write 6.6 MB", "fsync the file", "rename over the old file", "rename, the old file held open", "fsync the folder", "SHA-256 of 6.6 MB", "close of the held old file (frees it)"}
	times := make([][]time.Duration, len(names))
	for i := range runs * 2 {
		held := i%2 == 1 // taking turns
		text[len(text)/2] = byte('a' + i%26)
		t0 := time.Now()
		f, err := os.Create(temp)
		if err != nil {
			return err
		}
		if _, err := f.Write(text); err != nil {
			return err
		}
		t1 := time.Now()
		if err := f.Sync(); err != nil {
			return err
		}
		t2 := time.Now()
		f.Close()
		var old *os.File
		if held {
			if old, err = os.Open(target); err != nil {
				return err
			}
		}
		t3 := time.Now()
		if err := os.Rename(temp, target); err != nil {
			return err
		}
		t4 := time.Now()
		if err := folder.Sync(); err != nil {
			return err
		}
		t5 := time.Now()
		if old != nil {
			old.Close()
			times[6] = append(times[6], time.Since(t5))
			t5 = time.Now()
		}
		sha256.Sum256(text)
		t6 := time.Now()
		rename := 2
		if held {
			rename = 3
		} else {
			times[0] = append(times[0], t1.Sub(t0))
			times[1] = append(times[1], t2.Sub(t1))
			times[4] = append(times[4], t5.Sub(t4))
			times[5] = append(times[5], t6.Sub(t5))
		}
		times[rename] = append(times[rename], t4.Sub(t3))
	}
	fmt.Printf("replacing a 6.6 MB file atomically in %s, %d runs (%s)\n", dir, runs, machine())
	fmt.Printf("%-38s %10s %10s\n", "step", "p50", "max")
	for i, ts := range times {
		slices.Sort(ts)
		fmt.Printf("%-38s %7.2f ms %7.2f ms\n", names[i], ms(ts[len(ts)/2]), ms(ts[len(ts)-1]))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
