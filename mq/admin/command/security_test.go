package command_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// mqadminEnv runs the subcommand sub against c with the environment env (nothing else of the
// process's environment is read).
func mqadminEnv(t *testing.T, c *embedded.Cluster, env map[string]string, sub string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	all := append([]string{sub, "-n", c.NamesrvAddr()}, args...)
	code := command.Main(all, command.Env{Stdout: &out, Stderr: &errOut, Timeout: 10 * time.Second,
		Getenv: func(k string) string { return env[k] }})
	return result{code: code, out: out.String(), errOut: errOut.String()}
}

// toolsHome returns a ROCKETMQ_HOME whose conf/tools.yml holds yml ("" : no file).
func toolsHome(t *testing.T, yml string) string {
	home := t.TempDir()
	if yml != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(home, "conf"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, command.ToolsFile), []byte(yml), 0o644))
	}
	return home
}

// TestACLTools: against a broker with aclEnable=true, mqadmin signs with the account of
// $ROCKETMQ_HOME/conf/tools.yml; an admin subcommand (updateTopic: UPDATE_AND_CREATE_TOPIC) works
// with an admin account and is refused — exit code 1 and the broker's remark — with a non-admin
// account or without the file. Java: MQAdminStartup reading tools.yml through
// AclUtils#getAclRPCHook; Permission's admin codes.
func TestACLTools(t *testing.T) {
	acl := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(acl, []byte(`accounts:
  - accessKey: rocketmq2
    secretKey: 12345678
    admin: true
  - accessKey: plainUser
    secretKey: plainSecret1
    admin: false
`), 0o644))
	c := mqtest.StartACLCluster(t, acl)

	admin := map[string]string{"ROCKETMQ_HOME": toolsHome(t, "accessKey: rocketmq2\nsecretKey: 12345678\n")}
	r := mqadminEnv(t, c, admin, "updateTopic", "-c", "DefaultCluster", "-t", "AclAdminTopic")
	require.Equal(t, command.ExitOK, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	require.Contains(t, r.out, "create topic to ")

	refused := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"non-admin account", map[string]string{"ROCKETMQ_HOME": toolsHome(t, "accessKey: plainUser\nsecretKey: plainSecret1\n")},
			"needs an admin account; accessKey plainUser is not admin"},
		{"no tools.yml", map[string]string{"ROCKETMQ_HOME": toolsHome(t, "")}, "carries no AccessKey"},
		{"no ROCKETMQ_HOME", nil, "carries no AccessKey"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := mqadminEnv(t, c, tc.env, "updateTopic", "-c", "DefaultCluster", "-t", "AclRefusedTopic")
			require.Equal(t, command.ExitFailed, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
			require.Contains(t, r.errOut, tc.want)
			require.NotContains(t, r.errOut, "plainSecret1")
		})
	}

	r = mqadminEnv(t, c, map[string]string{"ROCKETMQ_HOME": toolsHome(t, "accessKey: [")}, "updateTopic", "-c", "DefaultCluster", "-t", "X")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "parse ")
}

// TestTLSTools: against servers with tls.server.mode=enforcing, mqadmin with TLS_ENABLE=true
// (tls.enable) creates a topic and lists the cluster; without it the connection fails (exit
// code 1). Java: TlsSystemConfig#tlsEnable read by the admin's remoting client.
func TestTLSTools(t *testing.T) {
	c := mqtest.StartTLSCluster(t, "enforcing")

	tlsEnv := map[string]string{"TLS_ENABLE": "true"}
	r := mqadminEnv(t, c, tlsEnv, "updateTopic", "-c", "DefaultCluster", "-t", "TlsAdminTopic")
	require.Equal(t, command.ExitOK, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	r = mqadminEnv(t, c, tlsEnv, "clusterList")
	require.Equal(t, command.ExitOK, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	require.Contains(t, r.out, "DefaultCluster")

	r = mqadminEnv(t, c, nil, "clusterList")
	require.Equal(t, command.ExitFailed, r.code, "a plain mqadmin reached an enforcing name server:\n%s", r.out)

	r = mqadminEnv(t, c, map[string]string{"TLS_ENABLE": "true", "TLS_CLIENT_CERTPATH": "/nonexistent.pem", "TLS_CLIENT_KEYPATH": "/nonexistent.key"}, "clusterList")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "tls.client.certPath/keyPath")
}
