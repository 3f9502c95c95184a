package startup

import (
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main is a binary's main over its error stream: it runs run with a channel that receives
// SIGINT and SIGTERM (run starts the server, waits on stop and shuts it down) and returns the
// exit status ExitCode gives for run's error, printed once with prog's prefix.
// Java: the shutdown hook NamesrvStartup and BrokerStartup register, and their System.exit.
func Main(prog string, stderr io.Writer, run func(stop <-chan os.Signal) error) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	return ExitCode(prog, run(sig), stderr)
}
