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
// master's HA and broker addresses; for every broker, the name server's ORDER_TOPIC_CONFIG
// namespace (topic → "brokerName:queueNums;..."), nil when it has none.
// Mirrors org.apache.rocketmq.common.namesrv.RegisterBrokerResult.
type RegisterBrokerResult struct {
	NamesrvAddr  string
	HaServerAddr string
	MasterAddr   string
	KvTable      map[string]string
}

// BrokerOuterAPI is the broker's client side towards the name servers: REGISTER_BROKER,
// QUERY_DATA_VERSION and UNREGISTER_BROKER over a remoting.Client.
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
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.RegisterBroker, protocol.EncodeHeader(&h), body))
	if err != nil {
		return RegisterBrokerResult{}, err
	}
	if resp.Code != protocol.Success {
		return RegisterBrokerResult{}, resp.Err()
	}
	var rh protocol.RegisterBrokerResponseHeader
	if err := protocol.DecodeHeader(resp.ExtFields, &rh); err != nil {
		return RegisterBrokerResult{}, fmt.Errorf("register broker response header: %w", err)
	}
	r := RegisterBrokerResult{NamesrvAddr: addr, HaServerAddr: rh.HaServerAddr, MasterAddr: rh.MasterAddr}
	if len(resp.Body) > 0 {
		kv, err := protocol.DecodeKVTable(resp.Body)
		if err != nil {
			return RegisterBrokerResult{}, fmt.Errorf("register broker response body: %w", err)
		}
		r.KvTable = kv.Table
	}
	return r, nil
}

// NeedRegister asks every name server, in parallel (timeout each), whether the broker's topic
// configuration changed since its last registration: QUERY_DATA_VERSION with the broker's
// identity in the header and dv as the body. A name server counts as "changed" when its answer
// says changed=true, when the DataVersion it returns differs from dv, or when the call fails
// (it may have lost the broker); a non-SUCCESS answer counts as unchanged, as in Java. It
// returns true when any name server needs a registration. An unchanged answer also refreshes
// the broker's liveness on that name server. With no name server it returns false.
// Java: BrokerOuterAPI#needRegister together with BrokerController#needRegister.
func (a *BrokerOuterAPI) NeedRegister(clusterName, brokerAddr, brokerName string, brokerID int64,
	dv protocol.DataVersion, timeout time.Duration) bool {
	h := protocol.QueryDataVersionRequestHeader{BrokerName: brokerName, BrokerAddr: brokerAddr,
		ClusterName: clusterName, BrokerID: brokerID}
	body := dv.Encode()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		changed bool
	)
	for _, addr := range a.NameServerAddressList() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := a.queryDataVersion(addr, h, body, dv, timeout)
			if err != nil {
				a.log.Warn("query data version from name server failed", "namesrvAddr", addr, "err", err)
				c = true
			}
			if c {
				mu.Lock()
				changed = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return changed
}

// queryDataVersion is one QUERY_DATA_VERSION call; see NeedRegister.
func (a *BrokerOuterAPI) queryDataVersion(addr string, h protocol.QueryDataVersionRequestHeader, body []byte,
	dv protocol.DataVersion, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.QueryDataVersion, protocol.EncodeHeader(&h), body))
	if err != nil {
		return false, err
	}
	if resp.Code != protocol.Success {
		a.log.Warn("query data version: not SUCCESS, counted as unchanged", "namesrvAddr", addr,
			"code", resp.Code, "remark", resp.Remark)
		return false, nil
	}
	var rh protocol.QueryDataVersionResponseHeader
	if err := protocol.DecodeHeader(resp.ExtFields, &rh); err != nil {
		return false, fmt.Errorf("query data version response header: %w", err)
	}
	changed := rh.Changed
	if len(resp.Body) > 0 {
		stored, err := protocol.DecodeDataVersion(resp.Body)
		if err != nil {
			return false, fmt.Errorf("query data version response body: %w", err)
		}
		changed = changed || stored != dv
	}
	a.log.Info("query data version from name server OK", "namesrvAddr", addr, "changed", changed,
		"counter", dv.Counter)
	return changed, nil
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
			resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.UnregisterBroker, protocol.EncodeHeader(&h), nil))
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

// CloseNameServerChannels closes the connections to every name server, as a broker process
// that dies or loses its network would; the next call reconnects. The name servers see the
// channels close and drop the broker at once (RouteInfoManager#onChannelDestroy). Tests and
// chapters use it; Java has no such method (NettyRemotingClient#closeChannel is the mechanism).
func (a *BrokerOuterAPI) CloseNameServerChannels() {
	for _, addr := range a.NameServerAddressList() {
		a.client.CloseChannel(addr)
	}
}

// Shutdown closes the client. Java: BrokerOuterAPI#shutdown.
func (a *BrokerOuterAPI) Shutdown() { a.client.Shutdown() }

// GetAllConfig asks the broker at addr for one of its config tables — GET_ALL_TOPIC_CONFIG
// (21), GET_ALL_CONSUMER_OFFSET (43), GET_ALL_DELAY_OFFSET (45) or
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), no header — and returns the JSON body. A non-SUCCESS
// answer is its remote error. Java: BrokerOuterAPI#getAllTopicConfig, #getAllConsumerOffset,
// #getAllDelayOffset, #getAllSubscriptionGroupConfig.
func (a *BrokerOuterAPI) GetAllConfig(addr string, code int32, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(code, nil, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != protocol.Success {
		return nil, resp.Err()
	}
	return resp.Body, nil
}
