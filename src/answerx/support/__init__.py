"""The layer-0 helpers: what every layer leans on, knowing nothing of answers.

- :mod:`~answerx.support.nofollow`: output files and folders never written through a
  symbolic link;
- :mod:`~answerx.support.yamlsafe` and :mod:`~answerx.support.yamlerrors`: bounded YAML
  loading, and validation errors as ``file:line``;
- :mod:`~answerx.support.resources`: the packaged data files (``config/``, ``prompts/``);
- :mod:`~answerx.support.home`: ``$ANSWERX_HOME``, where the user's state lives;
- :mod:`~answerx.support.earlysignals`: the SIGTERM held while the command loads;
- :mod:`~answerx.support.workerpool`: how many worker processes, and how they start;
- :mod:`~answerx.support.confidence`: the Wilson interval of a measured accuracy.

Nothing is imported here: ``earlysignals`` must load before anything heavy.
"""
