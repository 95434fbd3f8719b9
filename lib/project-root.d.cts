declare const projectRoot: string;
export = projectRoot;
