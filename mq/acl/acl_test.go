package acl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPermValues pins RocketMQ's Permission bytes and parsePermFromString.
func TestPermValues(t *testing.T) {
	require.Equal(t, []Perm{1, 2, 4, 8}, []Perm{PermDeny, PermAny, PermPub, PermSub})
	for s, want := range map[string]Perm{"PUB": 4, "SUB": 8, "PUB|SUB": 12, "SUB|PUB": 12, "DENY": 1, "": 1, "pub": 4, "READ": 1} {
		require.Equal(t, want, ParsePerm(s), s)
	}
	// Java: Permission#checkPermission.
	require.True(t, PermPub.Allows(PermPub))
	require.False(t, PermSub.Allows(PermPub))
	require.True(t, (PermPub | PermSub).Allows(PermSub))
	require.False(t, (PermDeny | PermPub).Allows(PermPub), "DENY wins")
	require.True(t, PermSub.Allows(PermAny))
	require.False(t, PermDeny.Allows(PermAny))
}

// TestSignContent: values in key order, no separators, Signature left out, body last; the
// signature is base64 HmacSHA1 (a value computed independently with openssl:
// printf 'ak12345Tbody' | openssl dgst -sha1 -hmac secret123 -binary | base64).
func TestSignContent(t *testing.T) {
	fields := map[string]string{"topic": "T", "AccessKey": "ak12345", "Signature": "old"}
	require.Equal(t, "ak12345Tbody", string(SignContent(fields, []byte("body"))))
	require.Equal(t, "luZpX7mnntP/PKyO+DThyvBmF+U=", Signature([]byte("ak12345Tbody"), "secret123"))

	f := map[string]string{"topic": "T"}
	Sign(f, []byte("body"), Credentials{AccessKey: "ak12345", SecretKey: "secret123"})
	require.Equal(t, "luZpX7mnntP/PKyO+DThyvBmF+U=", f[KeySignature])
	require.Equal(t, "ak12345", f[KeyAccessKey])
}

// TestAddressPatterns pins RocketMQ's white-list forms (RemoteAddressStrategyFactory).
func TestAddressPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		in, out []string
	}{
		{"", nil, []string{"1.2.3.4"}},
		{"*", []string{"1.2.3.4:5", "10.0.0.1"}, nil},
		{"*.*.*.*", []string{"1.2.3.4"}, nil},
		{"192.168.0.1", []string{"192.168.0.1:10911"}, []string{"192.168.0.2"}},
		{"192.168.0.{1,2}", []string{"192.168.0.1", "192.168.0.2:1"}, []string{"192.168.0.3"}},
		{"192.168.{1,2}", []string{"192.168.1.9", "192.168.2.0"}, []string{"192.168.3.1"}},
		{"192.168.1.1,192.168.1.2", []string{"192.168.1.2"}, []string{"192.168.1.3"}},
		{"192.168.*", []string{"192.168.7.7"}, []string{"192.169.0.1"}},
		{"192.168.1.*", []string{"192.168.1.200"}, []string{"192.168.2.1"}},
		{"192.168.1.1-5", []string{"192.168.1.1", "192.168.1.5"}, []string{"192.168.1.6", "192.168.1.0"}},
		{"192.168.1-3.*", []string{"192.168.3.1"}, []string{"192.168.4.1"}},
	}
	for _, c := range cases {
		p, err := ParseAddressPattern(c.pattern)
		require.NoError(t, err, c.pattern)
		for _, a := range c.in {
			require.True(t, p.Match(a), "%s should match %s", c.pattern, a)
		}
		for _, a := range c.out {
			require.False(t, p.Match(a), "%s should not match %s", c.pattern, a)
		}
	}
	for _, bad := range []string{"192.168.1.300", "1.2.3.4.5", "a.b.c.d", "192.168.1.5-1", "{1,2}"} {
		_, err := ParseAddressPattern(bad)
		require.Error(t, err, bad)
	}
}

const exampleYML = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    admin: true
`

func manager(t *testing.T, yml string) *PlainPermissionManager {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(yml), 0o644))
	m, err := NewPlainPermissionManager(path, nil)
	require.NoError(t, err)
	return m
}

func signed(ak, sk, addr string, topics, groups map[string]Perm) AccessResource {
	f := map[string]string{"topic": "x"}
	Sign(f, nil, Credentials{AccessKey: ak, SecretKey: sk})
	return AccessResource{AccessKey: ak, Signature: f[KeySignature], Content: SignContent(f, nil),
		RemoteAddr: addr, RequestCode: 10, Topics: topics, Groups: groups}
}

// TestValidate walks PlainPermissionManager#validate's order: global white list, unknown key,
// account white list, signature, admin, per-resource and default permissions.
func TestValidate(t *testing.T) {
	m := manager(t, exampleYML)
	const addr = "127.0.0.1:5000"
	ok := func(r AccessResource) { require.NoError(t, m.Validate(r)) }
	refused := func(r AccessResource, want string) {
		err := m.Validate(r)
		require.ErrorIs(t, err, ErrAccessDenied)
		require.ErrorContains(t, err, want)
		require.NotContains(t, err.Error(), "12345678", "a refusal never shows the secret")
	}
	ok(signed("RocketMQ", "12345678", addr, map[string]Perm{"topicB": PermPub}, map[string]Perm{"anyGroup": PermSub}))
	refused(signed("RocketMQ", "12345678", addr, map[string]Perm{"topicA": PermPub}, nil), "no permission for topic topicA")
	refused(signed("RocketMQ", "12345678", addr, map[string]Perm{"topicC": PermPub}, nil), "has SUB, needs PUB")
	refused(signed("RocketMQ", "12345678", addr, map[string]Perm{"other": PermSub}, nil), "no default permission for topic other")
	refused(signed("RocketMQ", "12345678", addr, nil, map[string]Perm{"groupA": PermSub}), "group groupA")
	refused(signed("RocketMQ", "wrongsecret", addr, nil, nil), "signature check failed for accessKey RocketMQ")
	refused(signed("nobody1", "12345678", addr, nil, nil), "no acl config for accessKey nobody1")
	refused(AccessResource{RemoteAddr: addr, RequestCode: 10}, "carries no AccessKey")
	r := signed("RocketMQ", "12345678", addr, nil, nil)
	r.NeedAdmin = true
	refused(r, "needs an admin account")
	// admin: everything, once the signature holds.
	r = signed("rocketmq2", "12345678", addr, map[string]Perm{"topicA": PermPub}, nil)
	r.NeedAdmin = true
	ok(r)
	refused(signed("rocketmq2", "bad-secret", addr, nil, nil), "signature")
	// white lists skip the signature.
	ok(signed("rocketmq2", "bad-secret", "192.168.1.7:1", map[string]Perm{"topicA": PermPub}, nil))
	ok(AccessResource{RemoteAddr: "10.10.103.4:9", NeedAdmin: true})
}

// TestFileRulesAndRewrite: bad files are refused naming the account, never the secret; the
// admin updates write the file, which loads back; a changed file is reloaded.
func TestFileRulesAndRewrite(t *testing.T) {
	for yml, want := range map[string]string{
		"accounts:\n  - accessKey: short\n    secretKey: 12345678\n":                         "accessKey \"short\"",
		"accounts:\n  - accessKey: longenough\n    secretKey: 12345\n":                       "secretKey of accessKey longenough",
		"accounts:\n  - accessKey: longenough\n    secretKey: 123456\n    topicPerms: [x]\n": "not name=PERM",
		"globalWhiteRemoteAddresses: [1.2.3.999]\n":                                          "1.2.3.999",
	} {
		_, err := ParsePlainAccessData([]byte(yml))
		require.ErrorContains(t, err, want)
		require.NotContains(t, err.Error(), "12345", "no secret in %q", err)
	}

	m := manager(t, exampleYML)
	require.NoError(t, m.UpdateAccount(PlainAccessConfig{AccessKey: "newkey1", SecretKey: "newsecret", DefaultTopicPerm: "PUB"}))
	require.NoError(t, m.UpdateGlobalWhiteAddrs([]string{"172.16.*"}))
	require.NoError(t, m.DeleteAccount("rocketmq2"))
	require.Error(t, m.DeleteAccount("rocketmq2"))
	require.Error(t, m.UpdateAccount(PlainAccessConfig{AccessKey: "x", SecretKey: "newsecret"}), "checked before writing")

	m2, err := NewPlainPermissionManager(m.Path(), nil)
	require.NoError(t, err)
	d := m2.Data()
	require.Equal(t, []string{"172.16.*"}, d.GlobalWhiteRemoteAddresses)
	require.Len(t, d.Accounts, 2)
	require.Equal(t, "newkey1", d.Accounts[1].AccessKey)
	require.NoError(t, m2.Validate(signed("newkey1", "newsecret", "1.1.1.1:1", map[string]Perm{"t": PermPub}, nil)))

	// A change by hand is picked up by Reload (what Watch calls); a broken file keeps the old table.
	require.NoError(t, os.WriteFile(m.Path(), []byte("accounts:\n  - accessKey: handmade\n    secretKey: 12345678\n    admin: true\n"), 0o644))
	changed, err := m2.Reload()
	require.NoError(t, err)
	require.True(t, changed)
	require.NoError(t, m2.Validate(signed("handmade", "12345678", "1.1.1.1:1", nil, nil)))
	require.NoError(t, os.WriteFile(m.Path(), []byte("accounts: [[["), 0o644))
	_, err = m2.Reload()
	require.Error(t, err)
	require.NoError(t, m2.Validate(signed("handmade", "12345678", "1.1.1.1:1", nil, nil)))
}
