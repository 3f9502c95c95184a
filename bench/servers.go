package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is one side's server running as a child process of the harness: the broker binary
// (mq/cmd/broker, its name server in the same process) or NATS (the harness binary itself in
// its NATS child mode). Its pid is what procCPU reads; addr is where the clients connect (the
// name server's ip:port, or NATS's nats:// URL). Its stderr goes to log in its directory.
type server struct {
	name string
	cmd  *exec.Cmd
	addr string
	dir  string
	log  string
	done chan error // the process's Wait result, once it exits
}

// serverStartTimeout bounds the wait for a child's ready line.
const serverStartTimeout = time.Minute

// startServer starts cmd with its stdout read line by line: ready is called on each line and
// returns the address once the line that says the server is up has come (empty: keep reading).
// Errors: the process did not start, exited, or said nothing ready within serverStartTimeout
// (the error quotes the end of its log).
func startServer(name, dir string, cmd *exec.Cmd, ready func(line string) string) (*server, error) {
	s := &server{name: name, cmd: cmd, dir: dir, log: filepath.Join(dir, name+".log"), done: make(chan error, 1)}
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if !found {
				if a := ready(sc.Text()); a != "" {
					found = true
					addrc <- a
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		s.done <- cmd.Wait()
		logf.Close()
	}()
	select {
	case s.addr = <-addrc:
		return s, nil
	case err := <-s.done:
		s.done <- err
		return nil, fmt.Errorf("%s exited before it was ready (%v): %s", name, err, tail(s.log))
	case <-time.After(serverStartTimeout):
		s.kill()
		return nil, fmt.Errorf("%s not ready within %s: %s", name, serverStartTimeout, tail(s.log))
	}
}

// stop sends SIGTERM and waits for the process to exit (SIGKILL after 30 s), then removes its
// directory unless keep. Errors: the process had to be killed, or exited with a failure.
func (s *server) stop(keep bool) error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-s.done:
	case <-time.After(30 * time.Second):
		s.kill()
		err = errors.New("killed after 30 s")
	}
	if err != nil {
		err = fmt.Errorf("%s stop: %w: %s", s.name, err, tail(s.log))
	}
	if !keep {
		_ = os.RemoveAll(s.dir)
	}
	return err
}

func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// cpu is the CPU time the server's process has used so far.
func (s *server) cpu() time.Duration { return procCPU(s.cmd.Process.Pid) }

// tail returns the last lines of a log file, for an error message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}

// startBroker starts brokerBin in dir with a fresh store: RocketMQ 4.9's defaults (1 GiB
// CommitLog files, ASYNC_FLUSH unless syncFlush) except the store path, loopback and ephemeral
// ports; with no name server given the broker starts one in its own process. addr is that
// name server.
func startBroker(ctx context.Context, brokerBin, dir string, syncFlush bool) (*server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	flush := "ASYNC_FLUSH"
	if syncFlush {
		flush = "SYNC_FLUSH"
	}
	conf := filepath.Join(dir, "broker.conf")
	body := fmt.Sprintf("storePathRootDir=%s\nlistenPort=0\nbindAddress=127.0.0.1\nflushDiskType=%s\n", filepath.Join(dir, "store"), flush)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, brokerBin, "-c", conf)
	var ns string
	return startServer("broker", dir, cmd, func(line string) string {
		// "The Name Server boot success (in-process). listen=127.0.0.1:37267", then
		// "The broker[vm, 127.0.0.1:38491] boot success. ..."
		if _, a, ok := strings.Cut(line, "(in-process). listen="); ok {
			ns = strings.TrimSpace(a)
		}
		if strings.HasPrefix(line, "The broker[") && strings.Contains(line, "boot success") {
			return ns
		}
		return ""
	})
}

// natsChildEnv marks the harness binary's NATS child mode (see natsChildMain).
const natsChildEnv = "ROCKETMQ_GO_BENCH_NATS_CHILD"

// startNATS starts NATS JetStream in a child process — the harness binary again, in its NATS
// child mode — with its file store in dir; syncAlways is nats-server's `sync_interval: always`
// (an fsync after every write). addr is its nats:// URL.
func startNATS(ctx context.Context, dir string, syncAlways bool) (*server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-store", filepath.Join(dir, "jetstream")}
	if syncAlways {
		args = append(args, "-sync-always")
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), natsChildEnv+"=1")
	return startServer("nats", dir, cmd, func(line string) string {
		a, _ := strings.CutPrefix(line, natsReadyPrefix)
		if a == line {
			return ""
		}
		return strings.TrimSpace(a)
	})
}
