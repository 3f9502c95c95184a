package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	ourconsumer "github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	ourproducer "github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// aclYML is a plain_acl.yml for the ACL tests: aclUser01 may publish and subscribe TopicAcl
// (and nothing else) in any group, subOnly01 may only subscribe it; no global white list
// covers loopback.
const aclYML = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: aclUser01
    secretKey: aclSecret01
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - %[1]s=PUB|SUB
  - accessKey: subOnly01
    secretKey: subSecret01
    defaultGroupPerm: SUB
    topicPerms:
      - %[1]s=SUB
`

// startACLCluster starts a cluster with aclEnable=true reading the file it writes; it returns
// the cluster and the file's path.
func startACLCluster(t *testing.T, topic string) (*embedded.Cluster, string) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(aclYML, topic)), 0o644))
	return mqtest.StartACLCluster(t, path), path
}

func sendErr(p interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte("x")))
	return err
}

// TestACLOfficialClient: the official client's primitive.Credentials with the right keys sends
// and consumes; a wrong secret, an unknown key, a missing permission and an unsigned client
// outside the global white list are refused, each with a remark saying what is missing (never
// the secret). Java behaviour pinned: PlainPermissionManager#validate behind the broker's RPC
// hook; an AclException is answered SYSTEM_ERROR with its message.
func TestACLOfficialClient(t *testing.T) {
	topic := fmt.Sprintf("TopicAcl_%d", instanceSeq.Add(1))
	c, path := startACLCluster(t, topic)
	ns := c.NamesrvAddr()
	good := primitive.Credentials{AccessKey: "aclUser01", SecretKey: "aclSecret01"}

	p := newProducer(t, ns, "acl_pg", producer.WithCredentials(good))
	var bodies []string
	for i := range 5 {
		b := fmt.Sprintf("acl-%d", i)
		bodies = append(bodies, b)
		sendSync(t, p, primitive.NewMessage(topic, []byte(b)))
	}
	col := newCollector()
	newPushConsumer(t, ns, "acl_cg", topic, consumer.MessageSelector{}, col.consume, consumer.WithCredentials(good))
	requireExactlyOnce(t, expectation{name: "signed consumer", col: col, want: bodies})

	refused := []struct {
		name string
		opts []producer.Option
		want string
	}{
		{"wrong secret", []producer.Option{producer.WithCredentials(primitive.Credentials{AccessKey: "aclUser01", SecretKey: "wrong-secret"})},
			"signature check failed for accessKey aclUser01"},
		{"unknown key", []producer.Option{producer.WithCredentials(primitive.Credentials{AccessKey: "nobody01", SecretKey: "whatever1"})},
			"no acl config for accessKey nobody01"},
		{"missing permission", []producer.Option{producer.WithCredentials(primitive.Credentials{AccessKey: "subOnly01", SecretKey: "subSecret01"})},
			"no permission for topic " + topic + ": accessKey subOnly01 has SUB, needs PUB"},
		{"unsigned, outside the white list", nil, "carries no AccessKey"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			p := newProducer(t, ns, "acl_bad_pg", r.opts...)
			err := sendErr(p, topic)
			require.Error(t, err)
			require.ErrorContains(t, err, r.want)
			require.NotContains(t, err.Error(), "aclSecret01")
		})
	}

	// UPDATE_GLOBAL_WHITE_ADDRS_CONFIG's rewrite lets loopback in unsigned; a hand edit of the
	// file back to the original is picked up by the watcher and refuses it again.
	unsigned := newProducer(t, ns, "acl_open_pg")
	require.Error(t, sendErr(unsigned, topic))
	require.NoError(t, c.Brokers[0].AclManager().UpdateGlobalWhiteAddrs([]string{"127.0.0.1"}))
	require.NoError(t, sendErr(unsigned, topic))
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(aclYML, topic)), 0o644))
	require.Eventually(t, func() bool { return sendErr(unsigned, topic) != nil }, 10*time.Second, 100*time.Millisecond,
		"a hand edit of plain_acl.yml is picked up")
}

// TestACLOurClient: our producer and push consumer sign their requests when their Options
// carry an AccessKey and a SecretKey: with the right keys they send and consume through a
// broker with aclEnable=true; with a wrong secret the send is refused naming the failed
// signature. Java behaviour pinned: AclClientRPCHook#doBeforeRequest.
func TestACLOurClient(t *testing.T) {
	topic := fmt.Sprintf("TopicAcl_%d", instanceSeq.Add(1))
	c, _ := startACLCluster(t, topic)
	pc := ourproducer.DefaultConfig("acl_our_pg")
	pc.NamesrvAddr, pc.InstanceName = c.NamesrvAddr(), instance(t)
	pc.Options.AccessKey, pc.Options.SecretKey = "aclUser01", "aclSecret01"
	p := ourproducer.NewDefaultMQProducer(pc)
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	for i := range 3 {
		_, err := p.Send(context.Background(), &ourprim.Message{Topic: topic, Body: []byte(fmt.Sprintf("ours-%d", i))})
		require.NoError(t, err)
	}

	var got atomic.Int32
	startOurPushConsumer(t, c.NamesrvAddr(), "acl_our_cg", topic, "*", func(msgs []*ourprim.MessageExt, _ *ourconsumer.ConsumeConcurrentlyContext) ourconsumer.ConsumeConcurrentlyStatus {
		got.Add(int32(len(msgs)))
		return ourconsumer.ConsumeSuccess
	}, func(cfg *ourconsumer.Config) {
		cfg.Options.AccessKey, cfg.Options.SecretKey = "aclUser01", "aclSecret01"
	})
	require.Eventually(t, func() bool { return got.Load() == 3 }, consumeTimeout, 20*time.Millisecond)

	bad := ourproducer.DefaultConfig("acl_our_bad_pg")
	bad.NamesrvAddr, bad.InstanceName = c.NamesrvAddr(), instance(t)
	bad.Options.AccessKey, bad.Options.SecretKey = "aclUser01", "wrong-secret"
	bad.RetryTimesWhenSendFailed = 0
	bp := ourproducer.NewDefaultMQProducer(bad)
	require.NoError(t, bp.Start())
	t.Cleanup(bp.Shutdown)
	_, err := bp.Send(context.Background(), &ourprim.Message{Topic: topic, Body: []byte("refused")})
	require.ErrorContains(t, err, "signature check failed for accessKey aclUser01")
	require.NotContains(t, err.Error(), "wrong-secret")
}
