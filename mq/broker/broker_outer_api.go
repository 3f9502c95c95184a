package broker

import (
	"context"
	"fmt"
	"hash/crc32"
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// unregisterBrokerTimeout bounds one UNREGISTER_BROKER call (Java: 3000 ms).
const unregisterBrokerTimeout = 3 * time.Second

// RegisterBrokerResult is one name server's answer to REGISTER_BROKER: for a slave, the
// master's HA and broker addresses. Mirrors org.apache.rocketmq.common.namesrv.RegisterBrokerResult.
type RegisterBrokerResult struct {
	NamesrvAddr  string
	HaServerAddr string
	MasterAddr   string
}

// BrokerOuterAPI is the broker's client side towards the name servers: REGISTER_BROKER and
// UNREGISTER_BROKER over a remoting.Client.
// Mirrors org.apache.rocketmq.broker.out.BrokerOuterAPI.
type BrokerOuterAPI struct {
	client *remoting.Client
	log    *slog.Logger

	mu       sync.RWMutex
	namesrvs []string
}

// NewBrokerOuterAPI returns the API with its own remoting client.
func NewBrokerOuterAPI(cfg remoting.ClientConfig, tr *trace.Tracer) *BrokerOuterAPI {
	return &BrokerOuterAPI{client: remoting.NewClient(cfg, tr), log: orDiscard(tr.Logger())}
}

// UpdateNameServerAddressList sets the name servers to talk to.
// Java: BrokerOuterAPI#updateNameServerAddressList.
func (a *BrokerOuterAPI) UpdateNameServerAddressList(addrs []string) {
	a.mu.Lock()
	a.namesrvs = append([]string(nil), addrs...)
	a.mu.Unlock()
}

// NameServerAddressList returns the name servers.
func (a *BrokerOuterAPI) NameServerAddressList() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return append([]string(nil), a.namesrvs...)
}

// RegisterBrokerAll sends REGISTER_BROKER to every name server in parallel, each bounded by
// timeout, and returns the successful answers. Header: brokerName, brokerAddr, clusterName,
// haServerAddr, brokerId, compressed=false, bodyCrc32 = CRC-32 (IEEE) of the body & 0x7FFFFFFF;
// body: RegisterBrokerBody JSON (topicConfigSerializeWrapper, filterServerList []).
// Failures are logged, not returned (the next period retries). Java: BrokerOuterAPI#registerBrokerAll.
func (a *BrokerOuterAPI) RegisterBrokerAll(clusterName, brokerAddr, brokerName string, brokerID int64,
	haServerAddr string, wrapper protocol.TopicConfigSerializeWrapper, timeout time.Duration) []RegisterBrokerResult {
	addrs := a.NameServerAddressList()
	if len(addrs) == 0 {
		return nil
	}
	body := protocol.RegisterBrokerBody{TopicConfigSerializeWrapper: wrapper}
	enc, err := body.Encode(false)
	if err != nil {
		a.log.Error("encode register broker body", "err", err)
		return nil
	}
	h := protocol.RegisterBrokerRequestHeader{
		BrokerName:   brokerName,
		BrokerAddr:   brokerAddr,
		ClusterName:  clusterName,
		HaServerAddr: haServerAddr,
		BrokerID:     brokerID,
		Compressed:   false,
		BodyCrc32:    int32(crc32.ChecksumIEEE(enc) & 0x7FFFFFFF),
	}
	var (
		mu      sync.Mutex
		results []RegisterBrokerResult
		wg      sync.WaitGroup
	)
	for _, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := a.registerBroker(addr, h, enc, timeout)
			if err != nil {
				a.log.Warn("register broker to name server failed", "namesrvAddr", addr, "err", err)
				return
			}
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
			a.log.Info("register broker to name server OK", "namesrvAddr", addr)
		}()
	}
	wg.Wait()
	return results
}

// registerBroker is one REGISTER_BROKER call. Java: BrokerOuterAPI#registerBroker.
func (a *BrokerOuterAPI) registerBroker(addr string, h protocol.RegisterBrokerRequestHeader, body []byte,
	timeout time.Duration) (RegisterBrokerResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.RegisterBroker, h.Encode(), body))
	if err != nil {
		return RegisterBrokerResult{}, err
	}
	if resp.Code != protocol.Success {
		return RegisterBrokerResult{}, resp.Err()
	}
	var rh protocol.RegisterBrokerResponseHeader
	if err := rh.Decode(resp.ExtFields); err != nil {
		return RegisterBrokerResult{}, fmt.Errorf("register broker response header: %w", err)
	}
	return RegisterBrokerResult{NamesrvAddr: addr, HaServerAddr: rh.HaServerAddr, MasterAddr: rh.MasterAddr}, nil
}

// UnregisterBrokerAll sends UNREGISTER_BROKER to every name server (in parallel, 3 s each);
// failures are logged. Java: BrokerOuterAPI#unregisterBrokerAll.
func (a *BrokerOuterAPI) UnregisterBrokerAll(clusterName, brokerAddr, brokerName string, brokerID int64) {
	h := protocol.UnRegisterBrokerRequestHeader{BrokerName: brokerName, BrokerAddr: brokerAddr,
		ClusterName: clusterName, BrokerID: brokerID}
	var wg sync.WaitGroup
	for _, addr := range a.NameServerAddressList() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), unregisterBrokerTimeout)
			defer cancel()
			resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.UnregisterBroker, h.Encode(), nil))
			if err == nil {
				err = resp.Err()
			}
			if err != nil {
				a.log.Warn("unregister broker from name server failed", "namesrvAddr", addr, "err", err)
				return
			}
			a.log.Info("unregister broker from name server OK", "namesrvAddr", addr)
		}()
	}
	wg.Wait()
}

// Shutdown closes the client. Java: BrokerOuterAPI#shutdown.
func (a *BrokerOuterAPI) Shutdown() { a.client.Shutdown() }
