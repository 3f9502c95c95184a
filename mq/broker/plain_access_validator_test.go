package broker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/acl"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// aclClass is one request code class: a request of it and the permissions it needs.
type aclClass struct {
	name   string
	req    func() *remoting.RemotingCommand
	topics map[string]acl.Perm
	groups map[string]acl.Perm
	admin  bool
}

func aclClasses(t *testing.T) []aclClass {
	hb, err := (&protocol.HeartbeatData{ClientID: "c1", ConsumerDataSet: []protocol.ConsumerData{{
		GroupName: "G", SubscriptionDataSet: []protocol.SubscriptionData{{Topic: "T", SubString: "*"}, {Topic: "%RETRY%G", SubString: "*"}}}}}).Encode()
	require.NoError(t, err)
	req := func(code int32, ext map[string]string, body []byte) func() *remoting.RemotingCommand {
		return func() *remoting.RemotingCommand {
			m := map[string]string{}
			for k, v := range ext {
				m[k] = v
			}
			return remoting.NewRequest(code, m, body)
		}
	}
	pub, sub := acl.PermPub, acl.PermSub
	return []aclClass{
		{"SEND_MESSAGE", req(protocol.SendMessage, map[string]string{"topic": "T", "producerGroup": "P"}, []byte("b")), map[string]acl.Perm{"T": pub}, nil, false},
		{"SEND_MESSAGE_V2", req(protocol.SendMessageV2, map[string]string{"b": "T", "a": "P"}, []byte("b")), map[string]acl.Perm{"T": pub}, nil, false},
		{"SEND_BATCH_MESSAGE", req(protocol.SendBatchMessage, map[string]string{"b": "T"}, []byte("b")), map[string]acl.Perm{"T": pub}, nil, false},
		{"SEND_MESSAGE to a retry topic", req(protocol.SendMessage, map[string]string{"topic": "%RETRY%G"}, nil), nil, map[string]acl.Perm{"G": pub}, false},
		{"CONSUMER_SEND_MSG_BACK", req(protocol.ConsumerSendMsgBack, map[string]string{"originTopic": "T", "group": "G", "offset": "0"}, nil),
			map[string]acl.Perm{"T": pub}, map[string]acl.Perm{"G": sub}, false},
		{"PULL_MESSAGE", req(protocol.PullMessage, map[string]string{"topic": "T", "consumerGroup": "G"}, nil),
			map[string]acl.Perm{"T": sub}, map[string]acl.Perm{"G": sub}, false},
		{"QUERY_MESSAGE", req(protocol.QueryMessage, map[string]string{"topic": "T", "key": "k"}, nil), map[string]acl.Perm{"T": sub}, nil, false},
		{"HEART_BEAT", req(protocol.HeartBeat, nil, hb), map[string]acl.Perm{"T": sub}, map[string]acl.Perm{"G": sub}, false},
		{"UNREGISTER_CLIENT", req(protocol.UnregisterClient, map[string]string{"clientID": "c1", "consumerGroup": "G"}, nil), nil, map[string]acl.Perm{"G": sub}, false},
		{"GET_CONSUMER_LIST_BY_GROUP", req(protocol.GetConsumerListByGroup, map[string]string{"consumerGroup": "G"}, nil), nil, map[string]acl.Perm{"G": sub}, false},
		{"UPDATE_CONSUMER_OFFSET", req(protocol.UpdateConsumerOffset, map[string]string{"consumerGroup": "G", "topic": "T", "queueId": "0", "commitOffset": "1"}, nil),
			map[string]acl.Perm{"T": sub}, map[string]acl.Perm{"G": sub}, false},
		{"QUERY_CONSUMER_OFFSET", req(protocol.QueryConsumerOffset, map[string]string{"consumerGroup": "G", "topic": "T", "queueId": "0"}, nil),
			map[string]acl.Perm{"T": sub}, map[string]acl.Perm{"G": sub}, false},
		{"UPDATE_AND_CREATE_TOPIC", req(protocol.UpdateAndCreateTopic, map[string]string{"topic": "T2"}, nil), nil, nil, true},
		{"UPDATE_BROKER_CONFIG", req(protocol.UpdateBrokerConfig, nil, []byte("x=1")), nil, nil, true},
		{"DELETE_TOPIC_IN_BROKER", req(protocol.DeleteTopicInBroker, map[string]string{"topic": "T2"}, nil), nil, nil, true},
		{"UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", req(protocol.UpdateAndCreateSubscriptionGroup, nil, []byte("{}")), nil, nil, true},
		{"DELETE_SUBSCRIPTIONGROUP", req(protocol.DeleteSubscriptionGroup, map[string]string{"groupName": "G"}, nil), nil, nil, true},
		{"UPDATE_AND_CREATE_ACL_CONFIG", req(protocol.UpdateAndCreateACLConfig, map[string]string{"accessKey": "newkey1", "secretKey": "newsecret"}, nil), nil, nil, true},
		{"DELETE_ACL_CONFIG", req(protocol.DeleteACLConfig, map[string]string{"accessKey": "newkey1"}, nil), nil, nil, true},
		{"GET_BROKER_CLUSTER_ACL_INFO", req(protocol.GetBrokerClusterACLInfo, nil, nil), nil, nil, true},
		{"UPDATE_GLOBAL_WHITE_ADDRS_CONFIG", req(protocol.UpdateGlobalWhiteAddrsConfig, map[string]string{"globalWhiteAddrs": "10.1.1.*"}, nil), nil, nil, true},
		{"other codes: a signature only", req(protocol.GetMaxOffset, map[string]string{"topic": "T", "queueId": "0"}, nil), nil, nil, false},
	}
}

// TestParseAccessResource pins what each request code class needs (PlainAccessValidator#parse):
// sends PUB on the topic, pull / offsets / heartbeat / unregister SUB on group and topic, the
// admin codes admin, every other code only a valid signature; the signed content covers the
// extFields but Signature, and the body.
func TestParseAccessResource(t *testing.T) {
	for _, c := range aclClasses(t) {
		req := c.req()
		acl.Sign(req.ExtFields, req.Body, acl.Credentials{AccessKey: "ak0001", SecretKey: "sk0001"})
		r, err := ParseAccessResource("127.0.0.1:1", req)
		require.NoError(t, err, c.name)
		require.Equal(t, "ak0001", r.AccessKey, c.name)
		require.Equal(t, acl.Signature(acl.SignContent(req.ExtFields, req.Body), "sk0001"), r.Signature, c.name)
		require.Equal(t, acl.SignContent(req.ExtFields, req.Body), r.Content, c.name)
		require.Equal(t, c.admin, r.NeedAdmin, c.name)
		require.Equal(t, orEmpty(c.topics), r.Topics, c.name)
		require.Equal(t, orEmpty(c.groups), r.Groups, c.name)
	}
	_, err := ParseAccessResource("127.0.0.1:1", remoting.NewRequest(protocol.HeartBeat, nil, []byte("{bad")))
	require.Error(t, err, "a heartbeat body that does not decode is refused, not a panic")
}

func orEmpty(m map[string]acl.Perm) map[string]acl.Perm {
	if m == nil {
		return map[string]acl.Perm{}
	}
	return m
}

type signingHook struct{ c acl.Credentials }

func (h signingHook) DoBeforeRequest(_ string, req *remoting.RemotingCommand) error {
	if req.ExtFields == nil {
		req.ExtFields = map[string]string{}
	}
	acl.Sign(req.ExtFields, req.Body, h.c)
	return nil
}

// TestACLOnTheWire runs every request code class against a broker with aclEnable=true: an
// account granted exactly what the class needs gets past the check (whatever its processor
// then answers); one lacking it (DENY on topic and group, not admin) is refused SYSTEM_ERROR
// with a remark saying what is missing; an admin account passes everything.
func TestACLOnTheWire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(`accounts:
  - accessKey: granted1
    secretKey: granted-secret
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: PUB|SUB
  - accessKey: denied01
    secretKey: denied-secret
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
`), 0o644))
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.AclEnable = true; c.PlainAclFile = path })
	clients := map[string]*remoting.Client{}
	for ak, sk := range map[string]string{"granted1": "granted-secret", "denied01": "denied-secret", "admin001": "admin-secret"} {
		cl := remoting.NewClient(remoting.ClientConfig{}, nil)
		t.Cleanup(cl.Shutdown)
		cl.RegisterRPCHook(signingHook{acl.Credentials{AccessKey: ak, SecretKey: sk}})
		clients[ak] = cl
	}
	isACLRefusal := func(r *remoting.RemotingCommand) bool {
		return r.Code == remoting.SystemError && strings.Contains(r.Remark, "acl: access denied")
	}
	for _, c := range aclClasses(t) {
		needsSomething := c.admin || len(c.topics) > 0 || len(c.groups) > 0
		if !c.admin {
			r := invokeWith(t, clients["granted1"], tb.addr, c.req())
			require.False(t, isACLRefusal(r), "%s: granted account refused: %s", c.name, r.Remark)
		}
		r := invokeWith(t, clients["denied01"], tb.addr, c.req())
		require.Equal(t, needsSomething, isACLRefusal(r), "%s: %d %s", c.name, r.Code, r.Remark)
		if needsSomething {
			require.NotContains(t, r.Remark, "secret")
			if c.admin {
				require.Contains(t, r.Remark, "needs an admin account")
			} else {
				require.Contains(t, r.Remark, "no default permission for")
			}
		}
		r = invokeWith(t, clients["admin001"], tb.addr, c.req())
		require.False(t, isACLRefusal(r), "%s: admin refused: %s", c.name, r.Remark)
	}
	// Unsigned and wrongly signed requests are refused before any processor.
	r := invokeWith(t, tb.client, tb.addr, remoting.NewRequest(protocol.GetMaxOffset, map[string]string{"topic": "T", "queueId": "0"}, nil))
	require.True(t, isACLRefusal(r))
	require.Contains(t, r.Remark, "carries no AccessKey")
	bad := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(bad.Shutdown)
	bad.RegisterRPCHook(signingHook{acl.Credentials{AccessKey: "granted1", SecretKey: "not-the-secret"}})
	r = invokeWith(t, bad, tb.addr, remoting.NewRequest(protocol.GetMaxOffset, map[string]string{"topic": "T", "queueId": "0"}, nil))
	require.Contains(t, r.Remark, "signature check failed for accessKey granted1")
}

// TestACLFileRefusedAtStart: aclEnable=true with a file that does not parse fails the start,
// naming the problem; aclEnable=true is no longer refused as "not built".
func TestACLFileRefusedAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte("accounts:\n  - accessKey: ab\n    secretKey: 12345678\n"), 0o644))
	cfg, storeCfg := testConfigs(t.TempDir())
	cfg.AclEnable, cfg.PlainAclFile = true, path
	_, err := CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
	require.ErrorContains(t, err, `accessKey "ab" must be at least 6 characters`)
}

// TestACLAdminCodes: UPDATE_AND_CREATE_ACL_CONFIG adds an account to plain_acl.yml (it can sign
// at once), GET_BROKER_CLUSTER_ACL_INFO lists it, UPDATE_GLOBAL_WHITE_ADDRS_CONFIG rewrites the
// white list, DELETE_ACL_CONFIG removes the account (its requests are refused again); a bad
// account is refused naming it, and without aclEnable the codes answer SYSTEM_ERROR.
// Java: AdminBrokerProcessor#updateAndCreateAccessConfig, #deleteAccessConfig,
// #getBrokerClusterAclInfo, #updateGlobalWhiteAddrsConfig.
func TestACLAdminCodes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte("accounts:\n  - accessKey: admin001\n    secretKey: admin-secret\n    admin: true\n"), 0o644))
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.AclEnable = true; c.PlainAclFile = path })
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(admin.Shutdown)
	admin.RegisterRPCHook(signingHook{acl.Credentials{AccessKey: "admin001", SecretKey: "admin-secret"}})
	user := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(user.Shutdown)
	user.RegisterRPCHook(signingHook{acl.Credentials{AccessKey: "newkey1", SecretKey: "new-secret"}})
	maxOffset := func() *remoting.RemotingCommand {
		return remoting.NewRequest(protocol.GetMaxOffset, map[string]string{"topic": "T", "queueId": "0"}, nil)
	}
	require.Contains(t, invokeWith(t, user, tb.addr, maxOffset()).Remark, "no acl config for accessKey newkey1")

	r := invokeWith(t, admin, tb.addr, remoting.NewRequest(protocol.UpdateAndCreateACLConfig, map[string]string{
		"accessKey": "newkey1", "secretKey": "new-secret", "defaultTopicPerm": "SUB", "topicPerms": "T1=PUB,T2=PUB|SUB", "admin": "false"}, nil))
	require.Equal(t, int32(protocol.Success), r.Code, r.Remark)
	require.NotContains(t, invokeWith(t, user, tb.addr, maxOffset()).Remark, "acl:")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "T2=PUB|SUB")

	r = invokeWith(t, admin, tb.addr, remoting.NewRequest(protocol.UpdateAndCreateACLConfig, map[string]string{"accessKey": "bad", "secretKey": "new-secret"}, nil))
	require.Equal(t, int32(protocol.SystemError), r.Code)
	require.Contains(t, r.Remark, `accessKey "bad"`)

	r = invokeWith(t, admin, tb.addr, remoting.NewRequest(protocol.UpdateGlobalWhiteAddrsConfig, map[string]string{"globalWhiteAddrs": "10.1.1.*, 192.168.0.1"}, nil))
	require.Equal(t, int32(protocol.Success), r.Code, r.Remark)

	r = invokeWith(t, admin, tb.addr, remoting.NewRequest(protocol.GetBrokerClusterACLInfo, nil, nil))
	require.Equal(t, int32(protocol.Success), r.Code, r.Remark)
	require.Equal(t, "broker-a", r.ExtFields["brokerName"])
	var body aclConfigBody
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.Equal(t, []string{"10.1.1.*", "192.168.0.1"}, body.GlobalWhiteAddrs)
	require.Len(t, body.PlainAccessConfigs, 2)
	require.Equal(t, []string{"T1=PUB", "T2=PUB|SUB"}, body.PlainAccessConfigs[1].TopicPerms)

	r = invokeWith(t, admin, tb.addr, remoting.NewRequest(protocol.DeleteACLConfig, map[string]string{"accessKey": "newkey1"}, nil))
	require.Equal(t, int32(protocol.Success), r.Code, r.Remark)
	require.Contains(t, invokeWith(t, user, tb.addr, maxOffset()).Remark, "no acl config for accessKey newkey1")

	off := startTestBroker(t, nil)
	r = off.invoke(t, remoting.NewRequest(protocol.GetBrokerClusterACLInfo, nil, nil))
	require.Equal(t, int32(protocol.SystemError), r.Code)
	require.Contains(t, r.Remark, "aclEnable=false")
}
