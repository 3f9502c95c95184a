package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's utime and stime (100 on Linux).
const clockTicks = 100

// procCPU returns the CPU time process pid has used: the sum of its threads' on-CPU time from
// /proc/<pid>/task/*/schedstat (nanoseconds; a thread that exited no longer counts, and a Go
// server's threads live as long as it does), or, where schedstat is missing, utime + stime
// from /proc/<pid>/stat (10 ms ticks). 0 when neither can be read (not Linux).
func procCPU(pid int) time.Duration {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	tasks, _ := filepath.Glob(filepath.Join(dir, "task", "*", "schedstat"))
	var sum time.Duration
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		sum += time.Duration(v)
		n++
	}
	if n > 0 {
		return sum
	}
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ... : utime and stime are fields 14 and 15, the 12th and 13th
	// after the closing parenthesis of comm (which may hold spaces).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTicks
}
