package configfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Store writes data to path atomically: `<path>.tmp` is written and fsynced, the current file
// (if any) is copied to `<path>.bak`, and the temp file is renamed to path; the directory is
// created if needed and fsynced after the rename. An error leaves the previous file in place.
// Java: MixAll#string2File.
func Store(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("configfile: %w", err)
	}
	tmp := path + ".tmp"
	if err := writeSync(tmp, data); err != nil {
		return fmt.Errorf("configfile: write %s: %w", tmp, err)
	}
	if old, err := os.ReadFile(path); err == nil {
		if err := writeSync(path+".bak", old); err != nil {
			return fmt.Errorf("configfile: backup %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("configfile: read %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("configfile: rename %s: %w", tmp, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func writeSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Load reads path and hands its bytes to decode. When the file is missing, empty or decode
// fails, it tries `<path>.bak` the same way. It returns which file was used ("" when neither
// exists: a first start, not an error) and an error only when a file exists and neither copy
// decodes. Java: ConfigManager#load and #loadBak.
func Load(path string, decode func([]byte) error) (used string, err error) {
	var errs []error
	for _, p := range []string{path, path + ".bak"} {
		data, rerr := os.ReadFile(p)
		if errors.Is(rerr, fs.ErrNotExist) {
			continue
		}
		if rerr != nil {
			errs = append(errs, rerr)
			continue
		}
		if len(data) == 0 {
			continue
		}
		if derr := decode(data); derr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, derr))
			continue
		}
		return p, nil
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("configfile: load %s: %w", path, errors.Join(errs...))
	}
	return "", nil
}
