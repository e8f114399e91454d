"""A one-off script nobody imports."""

import shutil


def remove_scratch_folder(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    remove_scratch_folder("/tmp/shop-scratch")
