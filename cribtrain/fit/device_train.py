"""Train on a lent GPU machine: ``python -m cribtrain.fit.device_train pack|run``.

Such a machine starts bare, can fetch nothing and takes at most 64 MiB of files, and its time is
counted in minutes. So `pack` (here) writes one folder: the training designs' card art as WebP
(a third of its PNG size) and the real training photos with their corrected labels. `run`
(there) makes the synthetic scenes on the machine's many cores from that art, cuts what the
stage trains on (stage 1's windows, or a reader's crops as `cribcam train sets` cuts them),
trains several networks side by side on the one GPU to a shared wall-clock deadline, and packs
each one's weights and results into its own archive (each file brought back must stay under
16 MB). Ultralytics itself travels as wheels; polars, which it imports only to read its results
back, is stood in for when missing. The readers' "none" crops need stage 1 as the app runs it
(`models/`, with ONNX Runtime there).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import multiprocessing
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.errors import SplitError, TrainingError

if TYPE_CHECKING:
    from cribtrain.data.trainsets import BoxFinder, Image, LabelledImage

#: What `run` trains: stage 1 on windows, the reader or the small-index reader on crops.
STAGES = ("detector", "reader", "small-reader")
#: New training scenes a stage makes by default. A reader's scene costs more (shrunk copies,
#: each boxed by stage 1): on 16 cores 400 of them and two draws of the real photos took 105 s
#: (stage 1's 2,400: 79 s), and 16 epochs of their 73,570 crops overfitted.
SCENES = {"detector": 2400, "reader": 800, "small-reader": 800}
#: Windows a scene gives (as `cribcam train sets`), and a real photo per seed (they are few).
SCENE_WINDOWS = 3
PHOTO_WINDOWS = 12
#: The readers' scenes alternate between these views (size, frame): a whole table at 640 px,
#: and a 1280 × 720 camera frame, whose indices are larger.
READER_VIEWS: tuple[tuple[int, tuple[int, int] | None], ...] = ((640, None), (1280, (1280, 720)))
#: A reader's validation scenes at the least: ultralytics' closing validation stops on a
#: folder that lacks any of the 53 classes (10 scenes' 512 small-index crops held 44).
READER_VAL_SCENES = 24
#: Seconds kept back at the end for ultralytics' last validation and the archives.
CLOSING_S = 50
POLARS_STAND_IN = '''"""Stand-in for polars: ultralytics reads its results CSV back with it
when it saves a checkpoint, and takes a failure there as "no results"."""


def read_csv(*args, **kwargs):
    raise RuntimeError("polars is not installed on this machine")
'''


@dataclass(frozen=True)
class Run:
    """One network to train: a name, the weights it starts from and its learning rate."""

    name: str
    init: Path
    lr: float

    @classmethod
    def parse(cls, spec: str) -> Run:
        """`NAME:WEIGHTS:LR`, e.g. ``p25:.gpu/p25.pt:0.01``."""
        parts = spec.split(":")
        if len(parts) != 3 or not parts[0].isidentifier():
            raise TrainingError(f"a run is NAME:WEIGHTS:LR, got {spec!r}")
        try:
            lr = float(parts[2])
        except ValueError:
            raise TrainingError(f"the learning rate of {spec!r} is not a number") from None
        if not 0 < lr < 1:
            raise TrainingError(f"the learning rate of {spec!r} must lie between 0 and 1")
        return cls(parts[0], Path(parts[1]), lr)


def pack(target: Path, art: Path, real: Path, real_train: Sequence[str], relabel: Path) -> int:
    """The folder that travels: usable training-design decks as WebP, the real training photos
    and their labels (the corrected ones where there are). Returns its size in bytes."""
    from cribtrain.data.cardart import held_out, iter_deck_dirs
    from cribtrain.measure.evaluate import label_files

    kept_out = held_out()
    for deck in iter_deck_dirs(art, partial=True):
        if deck.name in kept_out:
            continue
        out = target / "art" / deck.name
        out.mkdir(parents=True, exist_ok=True)
        for file in deck.iterdir():
            if file.suffix == ".png":  # alpha kept losslessly; faces are shrunk in every scene
                face = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
                if face is None:
                    raise TrainingError(f"not a readable face: {file}")
                cv2.imwrite(str(out / f"{file.stem}.webp"), face, [cv2.IMWRITE_WEBP_QUALITY, 95])
            elif file.suffix == ".json":
                shutil.copy(file, out / file.name)
    for sub in ("images", "labels"):
        (target / "real" / sub).mkdir(parents=True, exist_ok=True)
    photos = [real / "images" / name for name in real_train]
    for photo, label in zip(photos, label_files(real, photos, relabel), strict=True):
        shutil.copy(photo, target / "real" / "images" / photo.name)
        if label.exists():
            shutil.copy(label, target / "real" / "labels" / label.name)
    return sum(f.stat().st_size for f in target.rglob("*") if f.is_file())


def unpack_art(packed: Path, art: Path) -> list[Path]:
    """The WebP decks back as the PNG folders `cribtrain.data.synth` reads; returns the usable
    ones."""
    from cribtrain.data.cardart import iter_deck_dirs

    for deck in (packed / "art").iterdir():
        out = art / deck.name
        out.mkdir(parents=True, exist_ok=True)
        for file in deck.iterdir():
            if file.suffix == ".webp":
                face = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
                if face is None:
                    raise TrainingError(f"this OpenCV cannot read WebP: {file}")
                cv2.imwrite(str(out / f"{file.stem}.png"), face)
            else:
                shutil.copy(file, out / file.name)
    return list(iter_deck_dirs(art, partial=True))


def _scene_part(task: tuple[Path, str, str, int, int, int, list[Path], int]) -> int:
    """One chunk of scenes, made and cut for `stage`: how many windows or crops it gave."""
    from cribtrain.data.synth import SynthConfig, generate
    from cribtrain.data.trainsets import labelled_images, write_windows

    work, stage, part, seed, start, count, decks, chunk = task
    config = SynthConfig(keyboard=0.3 if part == "train" else 0.0)
    if stage != "detector":
        size, frame = READER_VIEWS[chunk % len(READER_VIEWS)]
        config = replace(config, size=size, frame=frame)
    scenes = work / f"{part}_scenes"
    generate(scenes, count, seed, decks, config, start=start, progress=False)
    names = [f"syn_{seed}_{i:06d}.jpg" for i in range(start, start + count)]
    prefix, chunk_seed = f"{part}{start}", start + 7 * seed
    if stage == "detector":
        per_image = SCENE_WINDOWS if part == "train" else 2
        return write_windows(labelled_images(scenes, names), work / "det" / part,
                             prefix=prefix, per_image=per_image, seed=chunk_seed)  # fmt: skip
    return write_reader_crops(stage, list(labelled_images(scenes, names)), work / "cls" / part,
                              prefix=prefix, seed=chunk_seed, photos=False)  # fmt: skip


def _photo_part(task: tuple[Path, str, Path, list[str], int]) -> int:
    """The real photos `names`, cut for `stage` into the training part."""
    from cribtrain.data.trainsets import labelled_images, write_windows

    work, stage, real, names, seed = task
    if stage == "detector":
        return write_windows(labelled_images(real, names), work / "det" / "train",
                             prefix=f"real{seed}", per_image=PHOTO_WINDOWS, seed=seed)  # fmt: skip
    return write_reader_crops(stage, list(labelled_images(real, names)), work / "cls" / "train",
                              prefix=f"real{seed}", seed=seed, photos=True)  # fmt: skip


def write_reader_crops(
    stage: str, sources: list[tuple[Image, LabelledImage]], out: Path, *, prefix: str,
    seed: int, photos: bool,
) -> int:  # fmt: skip
    """`stage`'s crops of `sources` into the class folders of `out`, as `cribcam train sets`
    cuts them: the reader's every index (at most `SCENE_CROPS` a scene) and what stage 1 boxes
    on no index as "none"; the small-index reader's from shrunk copies, the card around each
    index. Real photos (`photos`) give more of each: they are few. Returns the crops written."""
    if stage == "reader":
        from cribtrain.data.trainsets import (
            PHOTO_NONE,
            PHOTO_TURNS,
            SCENE_CROPS,
            SCENE_TURNS,
            capped,
            write_crops,
            write_none_crops,
        )

        if photos:
            written = write_crops(sources, out, prefix=prefix, rotations=PHOTO_TURNS, seed=seed)
            return written + write_none_crops(sources, _finder(), out, prefix=prefix,
                                              rotations=PHOTO_TURNS, cap=PHOTO_NONE,
                                              seed=seed + 1)  # fmt: skip
        indices = capped(sources, SCENE_CROPS, seed)
        written = write_crops(indices, out, prefix=prefix, rotations=SCENE_TURNS, seed=seed)
        return written + write_none_crops(sources, _finder(), out, prefix=prefix, seed=seed + 1)
    from cribtrain.fit.small_index import PHOTO_LOOKS, SCENE_LOOKS, shrunk_scenes, write_small_crops

    looks = PHOTO_LOOKS if photos else SCENE_LOOKS
    shrunk = shrunk_scenes(sources, looks, np.random.default_rng(seed))
    return sum(write_small_crops(shrunk, _finder(), out, prefix=prefix, seed=seed).values())


@functools.cache
def _finder() -> BoxFinder:
    """Stage 1 as the app runs it (`models/`), made once a process, after the fork, on one
    thread: `make_data` runs a process per core."""
    from cribtrain.data.trainsets import stage_one_boxes
    from vision.reading import CardReader

    return stage_one_boxes(CardReader(threads=1))


def make_data(packed: Path, work: Path, stage: str, scenes: int, photo_seeds: int,
              processes: int) -> Path:  # fmt: skip
    """What `stage` trains on, from `scenes` new training scenes (seed 501, a keyboard in 3 in
    10), the real photos (`photo_seeds` draws) and scenes//40 validation scenes (seed 502; at
    least `READER_VAL_SCENES` for a reader), made by `processes` processes: stage 1's
    data.yaml, or a reader's class-folder tree."""
    decks = unpack_art(packed, work / "art")
    step = max(1, scenes // (processes * 2))
    chunks = [("train", 501, s, min(step, scenes - s)) for s in range(0, scenes, step)]
    val = max(READER_VAL_SCENES if stage != "detector" else 4, scenes // 40)
    chunks += [("val", 502, s, min(8, val - s)) for s in range(0, val, 8)]
    tasks = [(work, stage, part, seed, start, count, decks, k)
             for k, (part, seed, start, count) in enumerate(chunks)]  # fmt: skip
    photos = sorted(p.name for p in (packed / "real" / "images").iterdir())
    shares = [photos[k::processes] for k in range(processes)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        real = pool.map_async(_photo_part, [(work, stage, packed / "real", share, 100 + 17 * s + k)
                                            for s in range(photo_seeds)
                                            for k, share in enumerate(shares)])  # fmt: skip
        made = sum(pool.map(_scene_part, tasks))
        kind = "windows" if stage == "detector" else "crops"
        print(f"{kind}: {made} synthetic, {sum(real.get())} real", flush=True)
    if stage != "detector":
        return work / "cls"
    from cribtrain.data.trainsets import write_data_yaml

    return write_data_yaml(work / "det", ["index"])


def train_side_by_side(stage: str, data: Path, runs: Sequence[Run], work: Path, device: str,
                       deadline: float) -> None:  # fmt: skip
    """Each run in its own process on the one device, all ending by `deadline` (time.time())."""
    from cribtrain.fit.train import offline_ultralytics

    offline_ultralytics()  # its settings and font, once, before the runs race to write them
    env = dict(os.environ)
    if importlib.util.find_spec("polars") is None:
        stand_in = work / "stand-in" / "polars"
        stand_in.mkdir(parents=True, exist_ok=True)
        (stand_in / "__init__.py").write_text(POLARS_STAND_IN)
        env["PYTHONPATH"] = os.pathsep.join([str(stand_in.parent), env.get("PYTHONPATH", "")])
    hours = (deadline - time.time()) / 3600
    jobs = []
    for run in runs:
        log = (work / f"{run.name}.log").open("w")
        command = [sys.executable, "-m", "cribtrain.fit.device_train", "one", stage, str(data),
                   str(work / "runs" / run.name), str(run.init), str(run.lr), f"{hours:.5f}",
                   device]  # fmt: skip
        jobs.append((run, log, subprocess.Popen(command, stdout=log, stderr=log, env=env)))
    print(f"training {', '.join(r.name for r in runs)} for {hours * 60:.1f} min", flush=True)
    for run, log, job in jobs:
        job.wait()
        log.close()
        print(f"{run.name} exited {job.returncode}", flush=True)


def archive(stage: str, work: Path, runs: Sequence[Run], out: Path) -> list[Path]:
    """One tar a run: its last and best weights (optimiser stripped), results.csv and log."""
    from ultralytics.utils.torch_utils import strip_optimizer

    archives = []
    for run in runs:
        folder = work / "runs" / run.name / _trained(stage)
        with tarfile.open(out / f"{run.name}.tar", "w") as tar:
            for weights in (folder / "weights" / "last.pt", folder / "weights" / "best.pt"):
                if weights.exists():
                    strip_optimizer(weights)
                    tar.add(weights, f"{run.name}/{weights.name}")
            for extra in (folder / "results.csv", work / f"{run.name}.log"):
                if extra.exists():
                    tar.add(extra, f"{run.name}/{extra.name}")
        archives.append(out / f"{run.name}.tar")
    return archives


def main(argv: Sequence[str] | None = None) -> int:
    started = time.time()
    parser = argparse.ArgumentParser(
        prog="python -m cribtrain.fit.device_train", description=__doc__
    )
    steps = parser.add_subparsers(dest="step", required=True)
    packing = steps.add_parser("pack", help="here: the folder that travels")
    packing.add_argument("target", type=Path)
    packing.add_argument("--art", type=Path, default=Path("datasets/cardart"))
    packing.add_argument("--real", type=Path, default=Path("../shared/datasets/dev-real"))
    packing.add_argument("--split", type=Path, default=Path("datasets/dev-real-split.json"))
    packing.add_argument("--relabel", type=Path, default=Path("datasets/dev-real-relabel/labels"))
    running = steps.add_parser("run", help="there: windows, then the runs side by side")
    running.add_argument("packed", type=Path)
    running.add_argument("out", type=Path, help="where the archives go ($OUT)")
    running.add_argument("--runs", nargs="+", required=True, help="NAME:WEIGHTS:LR each")
    running.add_argument("--stage", choices=STAGES, default="detector",
                         help="what the runs train (detector)")  # fmt: skip
    running.add_argument("--budget", type=float, default=545, help="seconds in all (545)")
    running.add_argument("--scenes", type=int,
                         help="new training scenes (the stage's SCENES: 2400 for the detector, "
                              "800 for a reader)")  # fmt: skip
    running.add_argument("--photo-seeds", type=int, default=2)
    running.add_argument("--work", type=Path, default=Path("/tmp/device-train"))
    running.add_argument("--device", default="0")
    one = steps.add_parser("one", help="one run (started by `run`)")
    one.add_argument("stage", choices=STAGES)
    for name in ("data", "project", "init"):
        one.add_argument(name, type=Path)
    one.add_argument("lr", type=float)
    one.add_argument("hours", type=float)
    one.add_argument("device")
    args = parser.parse_args(argv)
    try:
        return _step(args, started)
    except (TrainingError, SplitError) as error:
        print(f"device_train: {error}", file=sys.stderr)
        return 2


def _step(args: argparse.Namespace, started: float) -> int:
    if args.step == "pack":
        from cribtrain.data.realsplit import split_part

        split = split_part(args.split, "train")
        size = pack(args.target, args.art, args.real, split, args.relabel)
        print(f"{args.target}: {size / 1e6:.1f} MB")
    elif args.step == "run":
        runs = [Run.parse(spec) for spec in args.runs]
        for needed in (args.packed / "art", args.packed / "real" / "images"):
            if not needed.is_dir():
                raise TrainingError(
                    f"no {needed}: made by `python -m cribtrain.fit.device_train pack`"
                )
        for run in runs:
            if not run.init.is_file():
                raise TrainingError(f"run {run.name}: no weights at {run.init}")
        args.work.mkdir(parents=True, exist_ok=True)
        scenes = args.scenes or SCENES[args.stage]
        data = make_data(args.packed, args.work, args.stage, scenes, args.photo_seeds,
                         os.cpu_count() or 2)  # fmt: skip
        deadline = started + args.budget - CLOSING_S
        train_side_by_side(args.stage, data, runs, args.work, args.device, deadline)
        for path in archive(args.stage, args.work, runs, args.out):
            print(f"archive: {path}")
    else:
        from cribtrain.fit.train import train_stage

        train_stage(_trained(args.stage), args.data, args.project, hours=args.hours,
                    init=args.init, device=args.device, lr=args.lr, plots=False)  # fmt: skip
    return 0


def _trained(stage: str) -> str:
    """The `train_stage` stage (and run folder) of a `STAGES` name: both readers are readers."""
    return "detector" if stage == "detector" else "reader"


if __name__ == "__main__":
    sys.exit(main())
