"""Thin stage 1 by removing its weakest channels: a faster detector that starts from what the
shipped one learnt, instead of from scratch (6 CPU-hours and more here).

`torch_pruning` follows which channels depend on which through the network, but not through
the channel split at the head of ultralytics' CSP blocks (C2f, C3k2, C2PSA: `cv1(x).chunk(2)`).
Each such `cv1` is cut into two convolutions for the pruning and joined again after it, so the
pruned checkpoint holds ultralytics' own modules and trains, exports and resumes like any other.
The attention layers keep their width (their heads are reshaped by channel count), and so do
the head's last convolutions (their outputs are the boxes and scores).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cribtrain.fit.train import load_checkpoint, offline_ultralytics, save_checkpoint
from vision.errors import TrainingError

#: Input side of the example the pruner traces (any multiple of 32 works: the network is
#: convolutional; the MACs it reports are for this side).
TRACE_SIDE = 320
#: Channel counts stay multiples of this: the CPU's vector units compute 8 floats at once (AVX2),
#: and 12 channels cost what 16 do.
CHANNEL_MULTIPLE = 8


@dataclass(frozen=True)
class PruneResult:
    """What pruning removed: multiply-accumulates and parameters before and after."""

    macs_before: float
    macs_after: float
    params_before: int
    params_after: int

    @property
    def macs_kept(self) -> float:
        return self.macs_after / self.macs_before


def prune_detector(weights: Path, target: Path, share: float) -> PruneResult:
    """Remove `share` of the channels of every prunable layer of a detector checkpoint (those
    with the smallest weights) and save the thinner network at `target`, to be trained on
    (`cribcam train detector OUT --init TARGET`): pruned, it has lost much of its accuracy."""
    if not 0 < share < 1:
        raise TrainingError(f"the share of channels to prune must be between 0 and 1, got {share}")
    if not weights.is_file():
        raise TrainingError(f"no detector weights at {weights}")
    offline_ultralytics()
    import torch
    import torch_pruning as tp
    from ultralytics.nn.tasks import DetectionModel

    checkpoint, network = load_checkpoint(weights)
    if not isinstance(network, DetectionModel):
        raise TrainingError(f"{weights} holds a {type(network).__name__}, not a detector")
    split = _split_blocks(network)
    for parameter in network.parameters():
        parameter.requires_grad_(True)
    # Traced in training mode, where the head runs both its branches (one-to-one and
    # one-to-many); batch norm must not learn the random example's statistics meanwhile.
    norms = [m for m in network.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    momenta = [m.momentum for m in norms]
    for norm in norms:
        norm.momentum = 0.0
    network.train()
    example = torch.rand(1, 3, TRACE_SIDE, TRACE_SIDE)
    macs_before, params_before = tp.utils.count_ops_and_params(network, example)
    pruner = tp.pruner.MagnitudePruner(
        network, example, importance=tp.importance.MagnitudeImportance(p=2),
        pruning_ratio=share, pruning_ratio_dict=_layer_shares(network, share),
        ignored_layers=_kept_layers(network, split), round_to=CHANNEL_MULTIPLE,
        output_transform=_tensors,
    )  # fmt: skip
    pruner.step()
    macs_after, params_after = tp.utils.count_ops_and_params(network, example)
    for norm, momentum in zip(norms, momenta, strict=True):
        norm.momentum = momentum
    _join_blocks(network, split)
    network.eval()
    save_checkpoint({**checkpoint, "epoch": -1, "optimizer": None}, network, target)
    return PruneResult(macs_before, macs_after, params_before, params_after)


def kept_width(channels: int, share: float) -> int:
    """How many of a layer's `channels` stay: the nearest multiple of `CHANNEL_MULTIPLE` to what
    `share` leaves (half way, the larger), never fewer than one multiple. (`torch_pruning` rounds
    down, which halved the 16-channel layers that read the full-size frame at any share.)"""
    wanted = int(channels * (1 - share) / CHANNEL_MULTIPLE + 0.5) * CHANNEL_MULTIPLE
    return min(channels, max(CHANNEL_MULTIPLE, wanted))


def _layer_shares(network: Any, share: float) -> dict[Any, float]:
    """Each convolution's own share, so that `torch_pruning` keeps `kept_width` of its channels
    (it keeps int(channels x (1 - share)); the half channel guards against rounding)."""
    import torch

    shares: dict[Any, float] = {}
    for module in network.modules():
        if isinstance(module, torch.nn.Conv2d):
            channels = module.out_channels
            kept = kept_width(channels, share)
            shares[module] = 0.0 if kept == channels else 1 - (kept + 0.5) / channels
    return shares


def _tensors(output: Any) -> list[Any]:
    """Every tensor in a network's output (the head answers with nested dicts and tuples)."""
    import torch

    if isinstance(output, dict):
        return [t for value in output.values() for t in _tensors(value)]
    if isinstance(output, (list, tuple)):
        return [t for value in output for t in _tensors(value)]
    return [output] if isinstance(output, torch.Tensor) else []


def _split_blocks(network: Any) -> dict[int, Any]:
    """Swap each CSP block for one whose first convolution is cut in two (`_split_block`), so
    the pruner can follow it; returns them by layer index."""
    from ultralytics.nn.modules import C2PSA, C2f

    split = {}
    for index, layer in enumerate(network.model):
        if isinstance(layer, (C2f, C2PSA)):
            split[index] = network.model[index] = _split_block(layer)
    return split


def _kept_layers(network: Any, split: dict[int, Any]) -> list[Any]:
    """Layers whose output channels stay: the head's last convolutions, the attention layers,
    and the first half of a block that holds attention (both halves must stay equal)."""
    from ultralytics.nn.modules import Attention, Detect

    kept: list[Any] = []
    for module in network.modules():
        if isinstance(module, Detect):
            branches = (module.cv2, module.cv3, getattr(module, "one2one_cv2", ()),
                        getattr(module, "one2one_cv3", ()))  # fmt: skip
            kept += [branch[-1] for heads in branches for branch in heads]  # type: ignore[index]
        elif isinstance(module, Attention):
            kept.append(module)
    for block in split.values():
        if any(isinstance(m, Attention) for m in block.m.modules()):
            kept.append(block.first)
    return kept


def _join_blocks(network: Any, split: dict[int, Any]) -> None:
    """Put each pruned split block back into its ultralytics block, its halves joined."""
    for index, block in split.items():
        network.model[index] = block.joined()


def _split_block(block: Any) -> Any:
    """A CSP block whose `cv1` is two convolutions, one for each half of its output."""
    import torch
    from torch import nn

    class SplitBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            half = block.c
            self.first = _conv_slice(block.cv1, slice(0, half))
            self.second = _conv_slice(block.cv1, slice(half, 2 * half))
            self.m, self.cv2 = block.m, block.cv2
            self.attention_only = not isinstance(block.m, nn.ModuleList)  # C2PSA
            for name in ("f", "i", "type", "np"):
                if hasattr(block, name):
                    setattr(self, name, getattr(block, name))
            self.train(block.training)

        def forward(self, x: torch.Tensor) -> Any:
            if self.attention_only:
                return self.cv2(torch.cat((self.first(x), self.m(self.second(x))), 1))
            parts = [self.first(x), self.second(x)]
            parts.extend(m(parts[-1]) for m in self.m)
            return self.cv2(torch.cat(parts, 1))

        def joined(self) -> Any:
            first, second = self.first, self.second
            if first.conv.out_channels != second.conv.out_channels:
                raise TrainingError(
                    f"layer {self.i}: pruning left its halves unequal "
                    f"({first.conv.out_channels} and {second.conv.out_channels} channels)"
                )
            block.cv1 = _conv_joined(first, second)
            block.m, block.cv2, block.c = self.m, self.cv2, first.conv.out_channels
            return block

    return SplitBlock()


#: What a batch norm holds per channel.
NORM_VALUES = ("weight", "bias", "running_mean", "running_var")


def _conv_slice(conv: Any, rows: slice) -> Any:
    """A copy of an ultralytics `Conv` (convolution, batch norm, activation) keeping only the
    output channels `rows`."""
    norms = {name: getattr(conv.bn, name).data[rows].clone() for name in NORM_VALUES}
    return _conv_like(conv, conv.conv.weight.data[rows].clone(), norms)


def _conv_joined(first: Any, second: Any) -> Any:
    """One ultralytics `Conv` whose output is `first`'s channels, then `second`'s."""
    import torch

    norms = {name: torch.cat((getattr(first.bn, name).data, getattr(second.bn, name).data))
             for name in NORM_VALUES}  # fmt: skip
    return _conv_like(first, torch.cat((first.conv.weight.data, second.conv.weight.data)), norms)


def _conv_like(template: Any, weight: Any, norms: dict[str, Any]) -> Any:
    """A copy of ultralytics `Conv` `template` with these convolution weights and batch norm."""
    from torch import nn

    conv = copy.deepcopy(template)
    old = template.conv
    conv.conv = nn.Conv2d(old.in_channels, len(weight), old.kernel_size, old.stride, old.padding,
                          bias=False)  # fmt: skip
    conv.conv.weight.data = weight
    conv.bn = nn.BatchNorm2d(len(weight), eps=template.bn.eps, momentum=template.bn.momentum)
    for name, values in norms.items():
        getattr(conv.bn, name).data = values
    conv.train(template.training)
    return conv
