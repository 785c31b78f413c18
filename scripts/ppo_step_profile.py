#!/usr/bin/env python3
"""Where one PPO minibatch step of PCGRLLM's network spends its GPU time (PyTorch's own profiler).

The network, the one-hot input and the step's parts are those of src/pcgrl/torch/ppo.cc (actor:
two 7x7 stride-2 convolutions, Dense 64, Dense 6; critic: Dense 64 on the flattened one-hot,
Dense 64, Dense 1; 31x31x10 one-hot NHWC input from compact bytes; clipped PPO loss; gradient
clipping; Adam), rebuilt in PyTorch so that the profiler can be used; the numbers are a guide
to pcglab's libtorch step, not the same program. Run on the GPU machine by `scripts/gpu-bench.sh`
(PROFILE=1): the step's median time over 10 steps (float32 with TF32, and bf16 autocast), then the
20 kernels with the most GPU time over 5 float32 steps.

  python3 scripts/ppo_step_profile.py [--minibatch 19200]
"""
import argparse
import statistics

import torch
import torch.nn.functional as F


def network(channels=10, size=31, actions=6):
    conv1 = torch.nn.Conv2d(channels, 64, 7, 2, 3)
    conv2 = torch.nn.Conv2d(64, 64, 7, 2, 3)
    p = (size + 1) // 2
    p = (p + 1) // 2
    layers = torch.nn.ModuleDict({
        "conv1": conv1, "conv2": conv2, "actor_hidden": torch.nn.Linear(64 * p * p, 64),
        "actor_out": torch.nn.Linear(64, actions), "critic1": torch.nn.Linear(size * size * channels, 64),
        "critic2": torch.nn.Linear(64, 64), "critic_out": torch.nn.Linear(64, 1)
    })
    return layers.cuda()


def forward(net, x):
    a = F.relu(net["conv2"](F.relu(net["conv1"](x.permute(0, 3, 1, 2)))))
    a = F.relu(net["actor_hidden"](a.permute(0, 2, 3, 1).flatten(1)))
    v = F.relu(net["critic2"](F.relu(net["critic1"](x.flatten(1)))))
    return net["actor_out"](a), net["critic_out"](v).squeeze(-1)


def make_step(net, opt, table, batch):
    obs, act, old_logp, old_v, adv, ret = batch

    def step():
        x = table.index_select(0, obs.flatten().long()).view(obs.shape[0], 31, 31, table.shape[1])
        a = (adv - adv.mean()) / (adv.std() + 1e-8)
        logits, v = forward(net, x)
        logp_all = torch.log_softmax(logits.float(), -1)
        logp = logp_all.gather(1, act.unsqueeze(1)).squeeze(1)
        entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
        v = v.float()
        v_clipped = old_v + (v - old_v).clamp(-0.2, 0.2)
        value_loss = 0.5 * torch.max((v - ret).pow(2), (v_clipped - ret).pow(2)).mean()
        ratio = (logp - old_logp).exp()
        policy_loss = -torch.min(ratio * a, ratio.clamp(0.8, 1.2) * a).mean()
        loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()

    return step


def median_ms(step, steps=10, warmup=5):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minibatch", type=int, default=19200)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    n = args.minibatch
    b = torch.arange(256)
    table = torch.cat([(b & 15).unsqueeze(1).eq(torch.arange(9)), b.ge(16).unsqueeze(1)], 1).float().cuda()
    batch = (torch.randint(0, 9, (n, 31, 31), dtype=torch.uint8, device="cuda"),
             torch.randint(0, 6, (n,), device="cuda"), torch.full((n,), -1.79, device="cuda"),
             torch.randn(n, device="cuda"), torch.randn(n, device="cuda"), torch.randn(n, device="cuda"))
    net = network()
    opt = torch.optim.Adam(net.parameters(), lr=1e-4, eps=1e-5)
    step = make_step(net, opt, table, batch)
    print(f"minibatch {n}: float32/TF32 step {median_ms(step):.2f} ms (median of 10)")

    def bf16_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            step()

    print(f"minibatch {n}: bf16 autocast step {median_ms(bf16_step):.2f} ms (median of 10)")
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            step()
        torch.cuda.synchronize()
    averages = prof.key_averages()
    for key in ("self_cuda_time_total", "self_device_time_total"):
        try:
            print(averages.table(sort_by=key, row_limit=20, max_name_column_width=90))
            break
        except (AttributeError, KeyError, ValueError):
            continue


if __name__ == "__main__":
    main()
