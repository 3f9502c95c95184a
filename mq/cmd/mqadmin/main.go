package main

import (
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
)

// main runs one mqadmin subcommand and exits with its status (0 done, 1 failed, 2 bad command
// line).
func main() {
	os.Exit(command.Main(os.Args[1:], command.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
}
