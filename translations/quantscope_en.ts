<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>quantscope::MainWindow</name>
    <message numerus="yes">
        <source>Opened %1 with %n warning(s)</source>
        <translation>
            <numerusform>Opened %1 with %n warning</numerusform>
            <numerusform>Opened %1 with %n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s)</source>
        <translation>
            <numerusform>%n shard</numerusform>
            <numerusform>%n shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Opened the demo with %n warning(s)</source>
        <translation>
            <numerusform>Opened the demo with %n warning</numerusform>
            <numerusform>Opened the demo with %n warnings</numerusform>
        </translation>
    </message>
</context>
</TS>
