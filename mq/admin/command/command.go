package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// Exit codes of Main.
const (
	// ExitOK: the command did what it was asked.
	ExitOK = 0
	// ExitFailed: the command ran and failed (a broker's error, no such topic, no connection).
	ExitFailed = 1
	// ExitUsage: the command line is wrong (unknown subcommand or flag, a required option missing).
	ExitUsage = 2
)

// Env is what a run reads and writes besides its arguments.
type Env struct {
	Stdout, Stderr io.Writer
	// Getenv reads NAMESRV_ADDR, ROCKETMQ_HOME (for conf/tools.yml) and the TLSEnv variables
	// (nil: os.Getenv).
	Getenv func(string) string
	// Clock times resetOffsetByTime's "now" and the age columns (nil: the system clock).
	Clock clock.Clock
	// Timeout bounds each request (0: 5 s).
	Timeout time.Duration
}

// errUsage marks an error of the command line (ExitUsage).
var errUsage = errors.New("usage")

// usageError is a command-line error with its text.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// SubCommand is one mqadmin subcommand: its name, a one-line description, its options and its
// body. Mirrors org.apache.rocketmq.tools.command.SubCommand (commandName, commandDesc,
// buildCommandlineOptions, execute).
type SubCommand struct {
	Name string
	Desc string
	// options declares the subcommand's flags on o (besides -n and -h, which every one has
	// unless noNamesrv).
	options func(o *Options)
	// run does the work; a is nil when noNamesrv.
	run func(r *Run) error
	// noNamesrv: the subcommand reads local files only (dumpStore).
	noNamesrv bool
}

// Run is one execution of a subcommand: its parsed options, the admin client and the output.
type Run struct {
	Ctx    context.Context
	Opts   *Options
	Admin  *admin.DefaultMQAdminExt
	Out    io.Writer
	Clock  clock.Clock
	Getenv func(string) string
}

// Options holds a subcommand's flags: each has a short name (-t) and a long one (--topic), as
// RocketMQ's commons-cli options do, and may be required.
type Options struct {
	fs       *flag.FlagSet
	required []*option
	all      []*option
}

type option struct {
	short, long, usage string
	value              *string // a string option's value
	isBool, isNum      bool
}

// Str declares a string option; required ones must be given.
func (o *Options) Str(short, long, usage string, required bool, def string) *string {
	v := new(string)
	o.fs.StringVar(v, short, def, usage)
	o.fs.StringVar(v, long, def, usage)
	opt := &option{short: short, long: long, usage: usage, value: v}
	o.all = append(o.all, opt)
	if required {
		o.required = append(o.required, opt)
	}
	return v
}

// Bool declares a boolean option (-o or -o=true).
func (o *Options) Bool(short, long, usage string) *bool {
	v := new(bool)
	o.fs.BoolVar(v, short, false, usage)
	o.fs.BoolVar(v, long, false, usage)
	o.all = append(o.all, &option{short: short, long: long, usage: usage, isBool: true})
	return v
}

// Num declares a numeric option (an int64, spaces around it allowed); a value that is no
// number is a command-line error, as an unknown flag is.
func (o *Options) Num(short, long, usage string, required bool, def int64) *int64 {
	v := &def
	o.fs.Var(int64Value{v}, short, usage)
	o.fs.Var(int64Value{v}, long, usage)
	opt := &option{short: short, long: long, usage: usage, isNum: true}
	o.all = append(o.all, opt)
	if required {
		o.required = append(o.required, opt)
	}
	return v
}

// TrueFalse declares an option that takes "true" or "false" as its argument (-o true), as
// RocketMQ's boolean options with an argument do: "true" in any case is true, anything else
// false (Java's Boolean.parseBoolean).
func (o *Options) TrueFalse(short, long, usage string, def bool) *bool {
	v := &def
	o.fs.Var(trueFalseValue{v}, short, usage)
	o.fs.Var(trueFalseValue{v}, long, usage)
	o.all = append(o.all, &option{short: short, long: long, usage: usage})
	return v
}

// trueFalseValue is a flag.Value over a bool that needs its argument.
type trueFalseValue struct{ v *bool }

func (x trueFalseValue) String() string { return strconv.FormatBool(x.v != nil && *x.v) }

func (x trueFalseValue) Set(s string) error {
	*x.v = strings.EqualFold(strings.TrimSpace(s), "true")
	return nil
}

// int64Value is a flag.Value over an int64.
type int64Value struct{ v *int64 }

func (x int64Value) String() string {
	if x.v == nil {
		return "0"
	}
	return strconv.FormatInt(*x.v, 10)
}

func (x int64Value) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("not a number")
	}
	*x.v = n
	return nil
}

// Set reports whether the option named by its short name was given.
func (o *Options) Set(short string) bool {
	set := false
	for _, opt := range o.all {
		if opt.short == short {
			o.fs.Visit(func(f *flag.Flag) {
				if f.Name == opt.short || f.Name == opt.long {
					set = true
				}
			})
		}
	}
	return set
}

// Commands lists every subcommand, in the order mqadmin's help prints them.
func Commands() []*SubCommand {
	return []*SubCommand{
		updateTopicCmd, deleteTopicCmd, topicListCmd, topicRouteCmd, topicStatusCmd,
		clusterListCmd, brokerStatusCmd, getBrokerConfigCmd, updateBrokerConfigCmd,
		consumerProgressCmd, consumerConnectionCmd, producerConnectionCmd,
		updateSubGroupCmd, deleteSubGroupCmd, resetOffsetByTimeCmd,
		queryMsgByIdCmd, queryMsgByKeyCmd, queryMsgByOffsetCmd, printMsgCmd,
		sendMessageCmd, consumeMessageCmd, dumpStoreCmd,
	}
}

// Main runs mqadmin with args (without the program name) and returns the exit code: help with
// no arguments or "help", "help <sub>" or "<sub> -h" for a subcommand's options.
// Java: org.apache.rocketmq.tools.command.MQAdminStartup#main0.
func Main(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	stderr := env.Stderr
	if len(args) == 0 || args[0] == "help" && len(args) == 1 || args[0] == "-h" || args[0] == "--help" {
		printHelp(env.Stdout)
		return ExitOK
	}
	name := args[0]
	if name == "help" {
		name, args = args[1], []string{args[1], "-h"}
	}
	cmd := find(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "The sub command %s not exist.\n", name)
		printHelp(stderr)
		return ExitUsage
	}
	return run(cmd, args[1:], env)
}

func find(name string) *SubCommand {
	for _, c := range Commands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "The most commonly used mqadmin commands are:")
	for _, c := range Commands() {
		fmt.Fprintf(w, "   %-20s %s\n", c.Name, c.Desc)
	}
	fmt.Fprintln(w, "\nSee 'mqadmin help <command>' for more information on a specific command.")
	fmt.Fprint(w, "\n"+securityHelp)
}

// run parses a subcommand's flags, opens the admin client and runs it.
func run(cmd *SubCommand, args []string, env Env) int {
	o := &Options{fs: flag.NewFlagSet(cmd.Name, flag.ContinueOnError)}
	o.fs.SetOutput(io.Discard)
	var namesrv *string
	if !cmd.noNamesrv {
		namesrv = o.Str("n", "namesrvAddr", "Name server address list, eg: 192.168.0.1:9876;192.168.0.2:9876", false, "")
	}
	if cmd.options != nil {
		cmd.options(o)
	}
	help := o.Bool("h", "help", "Print help")
	if err := o.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(env.Stdout, cmd, o)
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd.Name, err)
		printUsage(env.Stderr, cmd, o)
		return ExitUsage
	}
	if *help {
		printUsage(env.Stdout, cmd, o)
		return ExitOK
	}
	if o.fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "%s: unexpected arguments %q\n", cmd.Name, o.fs.Args())
		printUsage(env.Stderr, cmd, o)
		return ExitUsage
	}
	for _, opt := range o.required {
		if opt.isNum && !o.Set(opt.short) || opt.value != nil && strings.TrimSpace(*opt.value) == "" {
			fmt.Fprintf(env.Stderr, "%s: Missing required option: %s\n", cmd.Name, opt.short)
			printUsage(env.Stderr, cmd, o)
			return ExitUsage
		}
	}
	r := &Run{Ctx: context.Background(), Opts: o, Out: env.Stdout, Clock: clock.Or(env.Clock), Getenv: env.Getenv}
	if !cmd.noNamesrv {
		addr := strings.TrimSpace(*namesrv)
		if addr == "" {
			addr = env.Getenv("NAMESRV_ADDR")
		}
		cfg := admin.Config{NamesrvAddr: addr, Timeout: env.Timeout}
		if err := security(&cfg, env.Getenv); err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", cmd.Name, err)
			return ExitFailed
		}
		a, err := admin.New(cfg)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", cmd.Name, err)
			return ExitUsage
		}
		defer a.Shutdown()
		r.Admin = a
	}
	if err := cmd.run(r); err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintf(env.Stderr, "%s: %s\n", cmd.Name, strings.TrimPrefix(err.Error(), "usage: "))
			printUsage(env.Stderr, cmd, o)
			return ExitUsage
		}
		fmt.Fprintf(env.Stderr, "%s command failed: %v\n", cmd.Name, err)
		return ExitFailed
	}
	return ExitOK
}

// printUsage prints "usage: mqadmin <name> <options>" and one line per option, as commons-cli's
// HelpFormatter does for mqadmin.
func printUsage(w io.Writer, cmd *SubCommand, o *Options) {
	fmt.Fprintf(w, "usage: mqadmin %s", cmd.Name)
	for _, opt := range o.all {
		arg := " <arg>"
		if opt.isBool {
			arg = ""
		}
		if slices.Contains(o.required, opt) {
			fmt.Fprintf(w, " -%s%s", opt.short, arg)
		} else {
			fmt.Fprintf(w, " [-%s%s]", opt.short, arg)
		}
	}
	fmt.Fprintf(w, "\n%s\n", cmd.Desc)
	for _, opt := range o.all {
		arg := " <arg>"
		if opt.isBool {
			arg = ""
		}
		fmt.Fprintf(w, " %-28s %s\n", fmt.Sprintf("-%s,--%s%s", opt.short, opt.long, arg), opt.usage)
	}
}

// table starts a box-drawn table with RocketMQ's column names as given (not upper-cased).
func table(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	h := make([]any, len(header))
	for i, s := range header {
		h[i] = s
	}
	t.Header(h...)
	return t
}

// row appends cells printed with fmt.Sprint.
func row(t *tablewriter.Table, cells ...any) {
	out := make([]any, len(cells))
	for i, c := range cells {
		out[i] = fmt.Sprint(c)
	}
	_ = t.Append(out...)
}
