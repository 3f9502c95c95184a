package mqtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CopyDir copies the regular files under src to dst, creating directories as needed: a
// snapshot of a store as a killed process leaves it (the page cache survives the process, so
// the files hold everything written).
func CopyDir(src, dst string) error {
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// FileName is the name of a CommitLog or ConsumeQueue file that starts at offset (bytes of
// its log): the offset in 20 decimal digits, zero-padded (Java: UtilAll#offset2FileName).
func FileName(offset int64) string {
	s := strconv.FormatInt(offset, 10)
	return strings.Repeat("0", max(20-len(s), 0)) + s
}
