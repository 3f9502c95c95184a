package rocketmqgo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// readmeMqadminLines returns the "./mqadmin ..." lines of the README's mqadmin cheatsheet
// (the code block of "## Operating the cluster: mqadmin" that starts with clusterList).
func readmeMqadminLines(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, line := range strings.Split(readmeSection(t, "## Operating the cluster: mqadmin"), "\n") {
		if strings.HasPrefix(line, "./mqadmin ") && !strings.Contains(line, "#") {
			lines = append(lines, strings.TrimPrefix(line, "./mqadmin "))
		}
	}
	require.Greater(t, len(lines), 10)
	return lines
}

// shellWords splits a command line on spaces, keeping "double-quoted words" whole.
func shellWords(line string) []string {
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// TestReadmeMqadminCheatsheet runs every command of the README's mqadmin cheatsheet, in its
// order, against an embedded cluster standing in for `./mqbroker -c conf/broker.conf` (broker-a
// of DefaultCluster) with the quickstart's producer and consumer groups running: the README's
// addresses and store path are replaced by the cluster's, <msgId> and <queueId> by what
// sendMessage printed. Each must exit 0 and print something (a command that reads what the
// broker builds behind a send, such as queryMsgByKey, is given a few seconds).
func TestReadmeMqadminCheatsheet(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	b := c.Brokers[0]

	pc := producer.DefaultConfig("quickstart-producer")
	pc.NamesrvAddr, pc.InstanceName = c.NamesrvAddr(), clienttest.InstanceName(t, "p")
	p := producer.NewDefaultMQProducer(pc)
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	for range 3 {
		_, err := p.Send(context.Background(), &primitive.Message{Topic: "QuickstartTopic", Body: []byte("hello, rocketmq-go")})
		require.NoError(t, err)
	}
	p.MQClientInstance().SendHeartbeatToAllBrokerWithLock()
	cc := consumer.DefaultConfig("quickstart-consumer")
	cc.NamesrvAddr, cc.InstanceName = c.NamesrvAddr(), clienttest.InstanceName(t, "c")
	cc.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cons := consumer.NewDefaultMQPushConsumer(cc)
	require.NoError(t, cons.Subscribe("QuickstartTopic", "*"))
	cons.RegisterMessageListener(func([]*primitive.MessageExt, *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		return consumer.ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	require.Eventually(t, func() bool { // the group has offsets (resetOffsetByTime needs them)
		cons.PersistConsumerOffset()
		return len(b.ConsumerOffsetManager().QueryOffsets("quickstart-consumer", "QuickstartTopic")) == 4 // its 4 queues
	}, 10*time.Second, 20*time.Millisecond)

	replace := strings.NewReplacer("127.0.0.1:9876", c.NamesrvAddr(), "127.0.0.1:10911", b.BrokerAddr(),
		"~/store", b.MessageStoreConfig().StorePathRootDir)
	vars := map[string]string{}
	for _, line := range readmeMqadminLines(t) {
		args := shellWords(replace.Replace(line))
		for i, a := range args {
			if v, ok := vars[a]; ok {
				args[i] = v
			}
		}
		var out, errOut bytes.Buffer
		require.Eventually(t, func() bool {
			out.Reset()
			errOut.Reset()
			return command.Main(args, command.Env{Stdout: &out, Stderr: &errOut}) == command.ExitOK
		}, 10*time.Second, 50*time.Millisecond, "README: ./mqadmin %s\nstderr: %s", line, &errOut)
		require.NotEmpty(t, out.String(), line)
		if args[0] == "sendMessage" {
			for _, l := range strings.Split(out.String(), "\n") {
				cells := strings.Split(strings.Trim(l, "│"), "│")
				if len(cells) == 4 && strings.TrimSpace(cells[2]) == "SEND_OK" {
					vars["<queueId>"], vars["<msgId>"] = strings.TrimSpace(cells[1]), strings.TrimSpace(cells[3])
				}
			}
			require.NotEmpty(t, vars["<msgId>"], out.String())
		}
	}
}

// TestReadmeMqadminSecurity runs the README Security section's mqadmin lines: "ROCKETMQ_HOME=.
// ./mqadmin ..." against a broker started with conf/plain_acl.yml (aclEnable=true), signed by
// the repository's conf/tools.yml, and "TLS_ENABLE=true ./mqadmin ..." against servers with
// tls.server.mode=enforcing. Each must exit 0 and print something.
func TestReadmeMqadminSecurity(t *testing.T) {
	text, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(text), "\n## Security\n")
	require.True(t, ok, "README has the Security section")
	section, _, _ = strings.Cut(section, "\n## ")
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	acl, err := os.ReadFile(filepath.Join("conf", "plain_acl.yml"))
	require.NoError(t, err)
	aclPath := filepath.Join(t.TempDir(), "plain_acl.yml") // a copy: the example file stays as it is
	require.NoError(t, os.WriteFile(aclPath, acl, 0o644))
	clusters := map[string]func() (*embedded.Cluster, map[string]string){
		"ROCKETMQ_HOME=. ./mqadmin ": func() (*embedded.Cluster, map[string]string) {
			return mqtest.StartACLCluster(t, aclPath), map[string]string{"ROCKETMQ_HOME": root}
		},
		"TLS_ENABLE=true ./mqadmin ": func() (*embedded.Cluster, map[string]string) {
			return mqtest.StartTLSCluster(t, "enforcing"), map[string]string{"TLS_ENABLE": "true"}
		},
	}
	ran := map[string]int{}
	for _, line := range strings.Split(section, "\n") {
		for prefix, start := range clusters {
			rest, ok := strings.CutPrefix(line, prefix)
			if !ok {
				continue
			}
			c, env := start()
			args := shellWords(strings.ReplaceAll(rest, "127.0.0.1:9876", c.NamesrvAddr()))
			var out, errOut bytes.Buffer
			code := command.Main(args, command.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }})
			require.Equal(t, command.ExitOK, code, "README: %s\nstderr: %s", line, &errOut)
			require.NotEmpty(t, out.String(), line)
			ran[prefix]++
		}
	}
	require.Len(t, ran, len(clusters), "the Security section shows an ACL and a TLS mqadmin line")
}
