package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	goprimitive "github.com/apache/rocketmq-client-go/v2/primitive"
	goproducer "github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"
)

// TestExampleACL: conf/broker.conf with aclEnable=true and conf/plain_acl.yml starts, and the
// official client's acl example (AccessKey RocketMQ, SecretKey 12345678, topic "test") sends
// through it, while the same producer without credentials is refused.
func TestExampleACL(t *testing.T) {
	yml, err := filepath.Abs(filepath.Join("..", "..", "..", "conf", "plain_acl.yml"))
	require.NoError(t, err)
	nsAddr, _, _ := runBroker(t, "-c", overlay(t, "broker.conf",
		append(storeOverlay(t), "aclEnable=true", "rocketmq.acl.plain.file="+yml)...))
	send := func(instance string, opts ...goproducer.Option) error {
		p, err := rocketmq.NewProducer(append([]goproducer.Option{goproducer.WithNameServer(goprimitive.NamesrvAddr{nsAddr}),
			goproducer.WithInstanceName(instance), goproducer.WithRetry(1)}, opts...)...)
		require.NoError(t, err)
		require.NoError(t, p.Start())
		defer func() { _ = p.Shutdown() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = p.SendSync(ctx, goprimitive.NewMessage("test", []byte("Hello RocketMQ Go Client!")))
		return err
	}
	require.NoError(t, send(t.Name()+"-signed", goproducer.WithCredentials(goprimitive.Credentials{AccessKey: "RocketMQ", SecretKey: "12345678"})))
	require.ErrorContains(t, send(t.Name()+"-unsigned"), "carries no AccessKey")
}
