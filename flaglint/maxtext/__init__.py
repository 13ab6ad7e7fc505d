"""What flaglint knows of MaxText: how it types a value, what pyconfig does besides, its mesh, the TPU
facts a launch is judged by, how its launches are recognised."""
