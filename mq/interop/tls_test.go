package interop

import (
	"context"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	ourproducer "github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// resetOfficialTLS turns the official client's TLS off again for the rest of the process:
// its WithTls writes through a pointer to the package's DefaultRemotingClientConfig, so
// WithTls(true) on one client makes every client created later in the process dial TLS.
// Building a producer applies its options; WithTls(false) writes false back.
func resetOfficialTLS() {
	_, _ = rocketmq.NewProducer(producer.WithTls(false))
	_, _ = rocketmq.NewPushConsumer(consumer.WithTls(false))
}

// officialSend starts an official producer (TLS or plain) and sends one message to topic
// (auto-created from TBW102); it returns the send's error.
func officialSend(t *testing.T, ns, topic string, useTLS bool) error {
	t.Helper()
	p, err := rocketmq.NewProducer(producer.WithNameServer(primitive.NamesrvAddr{ns}), producer.WithGroupName("tls-pg"),
		producer.WithInstanceName(instance(t)), producer.WithRetry(0), producer.WithTls(useTLS),
		producer.WithSendMsgTimeout(3*time.Second))
	require.NoError(t, err)
	if err := p.Start(); err != nil {
		return err
	}
	defer func() { _ = p.Shutdown() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = p.SendSync(ctx, primitive.NewMessage(topic, []byte("over tls")))
	return err
}

// The official client's TLS examples (examples/producer/tls, examples/consumer/tls: WithTls)
// against our servers in each tls.server.mode: enforcing takes TLS and refuses plain;
// permissive takes both on one port; our own producer (ClientConfig.UseTLS) and push consumer
// of the official client over TLS see the same messages. Java: TlsMode, the HandshakeHandler.
func TestOfficialClientTLS(t *testing.T) {
	t.Cleanup(resetOfficialTLS) // registered first: runs after every client of the test is shut down
	t.Run("enforcing", func(t *testing.T) {
		c := mqtest.StartTLSCluster(t, "enforcing")
		ns := c.NamesrvAddr()
		require.NoError(t, officialSend(t, ns, "TlsTopic", true))
		require.Error(t, officialSend(t, ns, "TlsTopic", false), "a plain client reached an enforcing broker")

		cfg := ourproducer.DefaultConfig("our-tls-pg")
		cfg.NamesrvAddr = ns
		cfg.InstanceName = instance(t)
		cfg.UseTLS = true
		ours := ourproducer.NewDefaultMQProducer(cfg)
		require.NoError(t, ours.Start())
		t.Cleanup(ours.Shutdown)
		_, err := ours.Send(context.Background(), &ourprim.Message{Topic: "TlsTopic", Body: []byte("ours over tls")})
		require.NoError(t, err)

		got := make(chan string, 4)
		newPushConsumer(t, ns, "tls-cg", "TlsTopic", consumer.MessageSelector{},
			func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
				for _, m := range msgs {
					got <- string(m.Body)
				}
				return consumer.ConsumeSuccess, nil
			}, consumer.WithTls(true))
		seen := map[string]bool{}
		require.Eventually(t, func() bool {
			for {
				select {
				case b := <-got:
					seen[b] = true
				default:
					return seen["over tls"] && seen["ours over tls"]
				}
			}
		}, consumeTimeout, 20*time.Millisecond, "the TLS consumer got %v", seen)
	})
	t.Run("permissive", func(t *testing.T) {
		c := mqtest.StartTLSCluster(t, "permissive")
		require.NoError(t, officialSend(t, c.NamesrvAddr(), "TlsTopic", true))
		require.NoError(t, officialSend(t, c.NamesrvAddr(), "TlsTopic", false))
	})
	t.Run("disabled", func(t *testing.T) {
		c := startCluster(t)
		require.Error(t, officialSend(t, c.NamesrvAddr(), "TlsTopic", true), "a TLS client reached a plain broker")
	})
}
